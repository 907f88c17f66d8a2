package dev.locksmith.core.spi;

import dev.locksmith.core.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * A request for a lease.
 *
 * @param lockId the lock's id; any string, providers map it to what their store accepts
 * @param ownerToken unique to this acquisition; see {@link OwnerTokens#newToken()}. A request is
 *     sent in one provider call: after that call refused it or failed, a provider may refuse its
 *     owner token for good (a copy of the call still on its way must not take the lock later), so
 *     the next call needs a new request
 * @param ttl the lease length to grant, positive and at most {@link Durations#MAX}
 * @param owner a readable description of the requester (host, pid, thread) for status and logs
 */
public record LockRequest(String lockId, String ownerToken, Duration ttl, String owner) {

  /**
   * Validates the fields.
   *
   * @param lockId see {@link #lockId()}
   * @param ownerToken see {@link #ownerToken()}
   * @param ttl see {@link #ttl()}
   * @param owner see {@link #owner()}
   */
  public LockRequest {
    Objects.requireNonNull(lockId, "lockId");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(owner, "owner");
    if (lockId.isEmpty()) {
      throw new IllegalArgumentException("lockId is empty");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    Durations.check(ttl, "ttl");
  }

  /**
   * A request with a fresh owner token, described as the current host, process and thread.
   *
   * @param lockId the lock id
   * @param ttl the lease length
   * @return the request
   */
  public static LockRequest of(String lockId, Duration ttl) {
    return new LockRequest(lockId, OwnerTokens.newToken(), ttl, OwnerTokens.describeCaller());
  }

  /**
   * This request's grant as a provider reports it: its lock id, owner token and ttl, the store's
   * fencing token, and the local deadline every fresh grant has, {@code sentNanos} plus the ttl.
   * The lease can only end later on the store than that, since the store started it after the
   * request was sent.
   *
   * @param fencingToken the store's fencing token for this grant
   * @param sentNanos when the request was sent, on the {@link System#nanoTime()} clock, or another
   *     time no later than the store's grant
   * @return the grant
   */
  public LeaseGrant granted(long fencingToken, long sentNanos) {
    return new LeaseGrant(lockId, ownerToken, fencingToken, ttl, sentNanos + ttl.toNanos());
  }
}
