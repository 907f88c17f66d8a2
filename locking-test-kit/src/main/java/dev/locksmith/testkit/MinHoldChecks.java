package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

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
}
