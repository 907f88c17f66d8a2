package dev.locksmith.redis;

import java.time.Duration;

/**
 * The checks a call passes before any command is sent, the provider open and each TTL within {@link
 * TtlBounds}, giving the keys of the call's locks under the provider's prefix.
 */
final class CallChecks {
  private final String prefix;
  private final AcquiresInFlight acquires;

  CallChecks(String prefix, AcquiresInFlight acquires) {
    this.prefix = prefix;
    this.acquires = acquires;
  }

  /**
   * The keys of {@code lockId}, once the provider is found open.
   *
   * @throws IllegalStateException when the provider is closed
   */
  LockKeys keys(String lockId) {
    acquires.checkOpen();
    return LockKeys.of(prefix, lockId);
  }

  /**
   * The keys of {@code lockId}, once {@code ttl} is found within bounds and the provider open.
   *
   * @throws IllegalArgumentException when {@code ttl} is out of bounds
   * @throws IllegalStateException when the provider is closed
   */
  LockKeys keys(String lockId, Duration ttl) {
    TtlBounds.checkTtl(ttl);
    return keys(lockId);
  }
}
