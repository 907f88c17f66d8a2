package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/** Checks that a lease kept for a minimum hold is not free again before the hold ends. */
public final class MinHoldChecks {
  private MinHoldChecks() {}

  /**
   * Tries to take {@code id} through {@code other} at once; when that succeeds, releases it and
   * checks that {@code minHold} has passed since {@code grantedAt}.
   *
   * @param other a client other than the holder
   * @param id the lock id
   * @param minHold the minimum hold
   * @param grantedAt {@link System#nanoTime()} no later than the grant the minimum hold counts from
   * @param what what an early grant means, for the failure message
   * @return whether the lock was free
   * @throws AssertionError when it was free before the minimum hold ended
   */
  public static boolean freeOnlyAfterMinHold(
      LockProvider other, String id, long grantedAt, Duration minHold, String what) {
    Optional<LeaseGrant> early = other.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5)));
    if (early.isEmpty()) {
      return false;
    }
    other.release(early.get());
    assertThat(Duration.ofNanos(System.nanoTime() - grantedAt))
        .as(what)
        .isGreaterThanOrEqualTo(minHold);
    return true;
  }

  /**
   * Polls {@code id} through {@code other} until it is free, for at most {@code minHold} plus
   * {@code grace}, and checks at the first free sighting that {@code minHold} had passed since
   * {@code grantedAt}: a lock freed a moment after one early probe is caught too.
   *
   * @param other a client other than the holder
   * @param id the lock id
   * @param grantedAt {@link System#nanoTime()} no later than the grant the minimum hold counts from
   * @param minHold the minimum hold
   * @param grace how long after the minimum hold the lock may take to be free
   * @param what what an early grant means, for the failure message
   * @throws AssertionError when it was free before the minimum hold ended, or not free in time
   */
  public static void awaitFreeOnlyAfterMinHold(
      LockProvider other,
      String id,
      long grantedAt,
      Duration minHold,
      Duration grace,
      String what) {
    await()
        .atMost(minHold.plus(grace))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> freeOnlyAfterMinHold(other, id, grantedAt, minHold, what));
  }
}
