package dev.locksmith.core.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FencingTest {

  @Test
  void guardRefusesALowerTokenAndRunsNothing() throws Exception {
    FencingGuard guard = new FencingGuard();
    List<String> writes = new ArrayList<>();
    guard.write("acct", 5, () -> writes.add("five"));
    guard.write("acct", 5, () -> writes.add("five again"));
    guard.write("acct", 7, () -> writes.add("seven"));
    assertThatThrownBy(() -> guard.write("acct", 6, () -> writes.add("six")))
        .isInstanceOf(StaleFencingTokenException.class)
        .hasMessage(
            "Write to 'acct' refused: fencing token 6 is lower than 7, already accepted from a"
                + " later holder");
    assertThat(writes).containsExactly("five", "five again", "seven");
    assertThat(guard.highest("acct")).hasValue(7);
    assertThat(guard.highest("other")).isEmpty();
  }

  @Test
  void failedWriteDoesNotRecordItsToken() throws Exception {
    FencingGuard guard = new FencingGuard();
    assertThatThrownBy(
            () ->
                guard.write(
                    "acct",
                    9,
                    () -> {
                      throw new IllegalStateException("disk full");
                    }))
        .hasMessage("disk full");
    assertThat(guard.highest("acct")).isEmpty();
    guard.write("acct", 3, () -> null);
  }

  @Test
  void fencedFileRefusesTheWriterWhoseLeaseRanOut(@TempDir Path dir) {
    FencedFile ledger = new FencedFile(dir.resolve("ledger"));
    assertThat(ledger.read()).isEqualTo(new FencedFile.Fenced("", Long.MIN_VALUE));
    MemoryLockProvider provider = MemoryLockProvider.isolated();
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      LockOptions options =
          LockOptions.named("ledger").withTtl(Duration.ofMillis(100)).withRenew(false);
      Lease paused = locksmith.acquire(options);
      Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> !paused.isValid());
      try (Lease next = locksmith.acquire(options.withTtl(Duration.ofSeconds(30)))) {
        ledger.write(next.fencingToken(), "balance=11");
      }
      assertThatThrownBy(() -> ledger.write(paused.fencingToken(), "balance=10"))
          .isInstanceOf(StaleFencingTokenException.class)
          .hasMessageContaining("fencing token " + paused.fencingToken() + " is lower");
      assertThat(ledger.read().value()).isEqualTo("balance=11");
      paused.close();
    }
  }

  @Test
  void fencedReadRefusesTheOlderHoldersLaterWrite(@TempDir Path dir) {
    FencedFile ledger = new FencedFile(dir.resolve("ledger"));
    ledger.write(1, "10");
    FencedFile.Fenced paused = ledger.read(2); // holder 2 reads, then pauses
    FencedFile.Fenced next = ledger.read(3); // holder 3 reads before anyone writes
    assertThat(paused.value()).isEqualTo("10");
    assertThatThrownBy(() -> ledger.write(2, "11")).isInstanceOf(StaleFencingTokenException.class);
    ledger.write(3, Long.toString(Long.parseLong(next.value()) + 1));
    assertThat(ledger.read().value()).isEqualTo("11");
    assertThatThrownBy(() -> ledger.read(2)).isInstanceOf(StaleFencingTokenException.class);
  }
}
