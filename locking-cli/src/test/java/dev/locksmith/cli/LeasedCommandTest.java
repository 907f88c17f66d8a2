package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockLostException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What {@code run} makes of COMMAND's end when the lease's deadline passed meanwhile. */
class LeasedCommandTest {
  private static final Duration GRACE = Duration.ofSeconds(2);

  @Test
  void aLeaseWhoseDeadlinePassedWhileCommandRanEndsTheRunAsLost() {
    // Stopped (Ctrl-Z, a long pause) while COMMAND ran: the deadline passed, and COMMAND ended
    // before the engine's check reported the loss.
    Lease lease = new PastItsDeadlineAfterTheStart();
    List<String> reports = new CopyOnWriteArrayList<>();
    StringWriter err = new StringWriter();
    int exit;
    try (SignalStop onSignal = SignalStop.install(GRACE, reports::add, () -> {}, () -> {})) {
      onSignal.hold(lease);
      exit =
          new LeasedCommand(
                  List.of("true"),
                  "'k'", // as RunKeys.describe() names the locks
                  GRACE,
                  null,
                  Duration.ofSeconds(1),
                  70,
                  new PrintWriter(err))
              .run(lease, onSignal, new CompletableFuture<>(), Launcher.detect());
    }
    assertThat(exit).as("the lost exit code, not COMMAND's 0").isEqualTo(70);
    assertThat(err.toString())
        .contains("lease on 'k' lost (its deadline passed)")
        .contains("COMMAND exited with 0")
        .contains("may have outlived the lease");
  }

  /** Valid when COMMAND starts, past its deadline from then on. */
  private static final class PastItsDeadlineAfterTheStart implements Lease {
    private final AtomicInteger looks = new AtomicInteger();

    @Override
    public String name() {
      return "k";
    }

    @Override
    public String key() {
      return "";
    }

    @Override
    public String lockId() {
      return "k";
    }

    @Override
    public long fencingToken() {
      return 7;
    }

    @Override
    public String ownerToken() {
      return "owner";
    }

    @Override
    public Duration timeLeft() {
      return isValid() ? Duration.ofSeconds(30) : Duration.ZERO;
    }

    @Override
    public boolean isValid() {
      return looks.incrementAndGet() == 1;
    }

    @Override
    public void checkValid() {
      if (!isValid()) {
        throw new LockLostException("k", "its deadline passed");
      }
    }

    @Override
    public void close() {}
  }
}
