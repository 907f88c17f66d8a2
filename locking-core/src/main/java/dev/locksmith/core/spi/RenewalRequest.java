package dev.locksmith.core.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One lease to renew and the TTL to give it, for {@link LockProvider#renewAll}.
 *
 * @param lease the live lease, as the provider granted or last renewed it
 * @param ttl the new lease length, counted from when the renewal is sent
 */
public record RenewalRequest(LeaseGrant lease, Duration ttl) {

  /**
   * Checks the fields.
   *
   * @param lease see {@link #lease()}
   * @param ttl see {@link #ttl()}
   */
  public RenewalRequest {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
  }
}
