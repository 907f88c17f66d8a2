package dev.locksmith.samples.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The classes surefire runs are the ajc-woven ones: {@code settle} runs under its lock. */
class WovenAtCompileTimeTest {
  @TempDir Path dir;
  private final List<String> events = new CopyOnWriteArrayList<>();
  private Locksmith locksmith;

  @BeforeEach
  void useEngine() {
    locksmith =
        Locksmith.builder()
            .defaultProvider(
                LockProviders.create(dir.resolve("locks").toUri() + "?create-dirs=true"))
            .listener(
                new LockListener() {
                  @Override
                  public void acquired(LockEvent event, Duration waited) {
                    events.add("acquired " + event.lockId() + " " + event.fencingToken());
                  }

                  @Override
                  public void released(LockEvent event, Duration held) {
                    events.add("released " + event.lockId() + " " + event.fencingToken());
                  }
                })
            .build();
    AspectLocksmith.use(locksmith);
  }

  @AfterEach
  void closeEngine() {
    AspectLocksmith.reset();
    locksmith.close();
  }

  @Test
  void settlementIsWovenAndValid() {
    assertThat(AspectLocksmith.validate(Settlement.class)).isEqualTo(1);
  }

  @Test
  void settleRunsUnderTheAccountsLockAndSettlesARoundOnce() throws Exception {
    Ledger ledger = new Ledger(dir);
    Settlement settlement = new Settlement(ledger, "test", Duration.ZERO);

    assertThat(settlement.settle("acc-9", 1)).isEqualTo(Settlement.Outcome.SETTLED);
    assertThat(settlement.settle("acc-9", 1)).isEqualTo(Settlement.Outcome.FOUND_SETTLED);

    List<Ledger.Entry> entries = ledger.entries("acc-9");
    assertThat(entries)
        .extracting(Ledger.Entry::kind, Ledger.Entry::round, Ledger.Entry::worker)
        .containsExactly(tuple("begin", 1, "test"), tuple("end", 1, "test"));
    long token = entries.get(0).token();
    assertThat(events)
        .startsWith("acquired settlement:acc-9 " + token, "released settlement:acc-9 " + token)
        .hasSize(4);
  }
}
