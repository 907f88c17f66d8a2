package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The keeper's sweep runs only while a lease is watched or being acquired, and stopping it never
 * leaves a watched lease unswept: renewals and the deadline check work on leases watched after a
 * stop.
 */
class LeaseKeeperTest extends VirtualTimeFixture {
  private final LeaseKeeper keeper = locksmith.keeper();

  private void awaitSweepStopped() {
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(2))
        .until(() -> !keeper.isSweeping());
  }

  @Test
  void sweepRunsOnlyWhileALeaseIsWatched() {
    assertThat(keeper.isSweeping()).isFalse();
    Lease first = locksmith.acquire(lock("first", "3s"));
    assertThat(keeper.isSweeping()).isTrue();
    first.close();
    awaitSweepStopped();

    Lease second = locksmith.acquire(lock("second", "3s"));
    assertThat(keeper.isSweeping()).isTrue();
    second.close();
    awaitSweepStopped();
  }

  @Test
  void sweepRunsWhileAnAcquisitionIsUnderWayWithNoLeaseWatched() {
    assertThat(keeper.isSweeping()).isFalse();
    keeper.acquisitionStarted();
    try {
      assertThat(keeper.isSweeping()).isTrue();
      // Ten ticks and more: a sweep with nothing to do would have stopped.
      await()
          .during(Duration.ofMillis(100))
          .atMost(Duration.ofSeconds(2))
          .until(keeper::isSweeping);
    } finally {
      keeper.acquisitionEnded();
    }
    awaitSweepStopped();
  }

  @Test
  void leaseWatchedAfterTheSweepStoppedIsRenewedAndLostAtItsDeadline() throws Exception {
    locksmith.acquire(lock("before", "3s")).close();
    awaitSweepStopped();

    provider.hangRenewals();
    Lease lease = locksmith.acquire(lock("hung", "3s"));
    ticker.advance(Duration.ofMillis(1100));
    assertThat(provider.renewStarted.await(5, TimeUnit.SECONDS)).isTrue();
    ticker.advance(Duration.ofMillis(1850));
    // Several sweeps see the time just before the deadline, and none reports the loss.
    await()
        .during(Duration.ofMillis(5 * LeaseKeeper.TICK_MILLIS))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !events.events.contains("lost hung"));

    ticker.advance(Duration.ofMillis(50)); // the deadline: 3 s after the grant
    await().atMost(Duration.ofSeconds(2)).until(() -> events.events.contains("lost hung"));
    provider.answerRenewals();
    lease.close();
  }

  @Test
  void leaseWatchedWhileTheSweepStopsIsStillSwept() {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    int rounds = 0;
    for (; rounds < 200 && System.nanoTime() - end < 0; rounds++) {
      // No lease left: the next sweep stops. Watch the next lease at a random moment around it.
      locksmith.acquire(lock("race", "3s")).close();
      LockSupport.parkNanos(
          ThreadLocalRandom.current().nextLong(2 * LeaseKeeper.TICK_NANOS + 1_000_000));
      try (Lease lease = locksmith.acquire(lock("race", "3s"))) {
        await()
            .atMost(Duration.ofSeconds(1))
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(1))
            .until(keeper::isSweeping);
        assertThat(lease.isValid()).isTrue();
      }
    }
    assertThat(rounds).isPositive();
  }

  @Test
  void closingTheEngineStopsTheSweep() {
    locksmith.acquire(lock("open", "3s"));
    assertThat(keeper.isSweeping()).isTrue();
    locksmith.close();
    assertThat(keeper.isSweeping()).isFalse();
  }
}
