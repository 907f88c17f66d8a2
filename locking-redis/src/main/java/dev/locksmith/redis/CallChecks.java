package dev.locksmith.redis;

import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
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

  /**
   * The keys of {@code request}'s lock, once its owner token, its TTL and the provider are found
   * fit. The scripts keep owner tokens in space-separated lists, a released one followed by {@code
   * /}: a token holding either character (or none at all) would be read as another's.
   *
   * @throws IllegalArgumentException when the owner token or the TTL is refused
   * @throws IllegalStateException when the provider is closed
   */
  LockKeys keys(LockRequest request) {
    String token = request.ownerToken();
    if (token.isEmpty() || token.indexOf(' ') >= 0 || token.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "owner token "
              + LockIdText.quoted(token)
              + " of lock "
              + LockIdText.quoted(request.lockId())
              + " is empty or holds a space or '/', which the Redis provider's records cannot"
              + " keep apart; use OwnerTokens.newToken()");
    }
    return keys(request.lockId(), request.ttl());
  }
}
