package dev.locksmith.core.spi;

import java.time.Duration;

/**
 * What a provider grants: a lease on one lock id, held by one acquisition.
 *
 * @param lockId the lock's id ({@code name} or {@code name:key})
 * @param ownerToken unique to the acquisition that holds the lease, not to a host or thread; renew
 *     and release present it, from any thread
 * @param fencingToken strictly increases with every grant of this lock id, across all holders
 * @param ttl the lease length last granted
 * @param deadlineNanos a conservative local deadline on the {@link System#nanoTime()} clock: a time
 *     no later than the provider's grant (the time the request was sent, or for a grant pushed
 *     after a wait, a bound such as its arrival less the round trip) plus {@code ttl}, so the lease
 *     surely ends no earlier on the provider
 */
public record LeaseGrant(
    String lockId, String ownerToken, long fencingToken, Duration ttl, long deadlineNanos) {

  /**
   * Whether the local deadline has passed.
   *
   * @return whether the local deadline has passed
   */
  public boolean expired() {
    return expiredAt(System.nanoTime());
  }

  /**
   * Whether the local deadline has passed at {@code nanos} on the {@code nanoTime} clock.
   *
   * @param nanos a {@code nanoTime} reading
   * @return whether the deadline has passed then
   */
  public boolean expiredAt(long nanos) {
    return nanos - deadlineNanos >= 0;
  }

  /**
   * Time left until the local deadline, never negative.
   *
   * @return time left until the local deadline, never negative
   */
  public Duration timeLeft() {
    return timeLeftAt(System.nanoTime());
  }

  /**
   * Time left at {@code nanos} on the {@code nanoTime} clock until the local deadline, never
   * negative.
   *
   * @param nanos a {@code nanoTime} reading
   * @return the time left then
   */
  public Duration timeLeftAt(long nanos) {
    long left = deadlineNanos - nanos;
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  /**
   * The same lease with a new ttl and deadline, as a renewal grants it.
   *
   * @param newTtl the new ttl
   * @param newDeadlineNanos the new local deadline on the {@code nanoTime} clock
   * @return the renewed lease
   */
  public LeaseGrant renewed(Duration newTtl, long newDeadlineNanos) {
    return new LeaseGrant(lockId, ownerToken, fencingToken, newTtl, newDeadlineNanos);
  }
}
