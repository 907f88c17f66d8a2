package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** Shared helpers: URLs of the test Redis with short timeouts, and requests. */
final class RedisTests {
  private RedisTests() {}

  /** Short timeouts so that tests about failures stay fast. */
  static final String FAST = "timeout=1s&connect-timeout=1s&retry-attempts=1&retry-interval=200ms";

  /** The shared test server's URL with a prefix of its own, so tests never see each other. */
  static String sharedUrl() {
    return TestRedis.sharedUrl() + "?prefix=t" + unique(8);
  }

  /** The URL of a Redis behind {@code proxy}, with {@code prefix} and {@link #FAST} timeouts. */
  static String proxiedUrl(FaultProxy proxy, String prefix) {
    return "redis://" + proxy.host() + ":" + proxy.port() + "?prefix=" + prefix + "&" + FAST;
  }

  /**
   * Waits up to {@code wait} for {@code id} through {@code provider} on another thread, with a 30 s
   * lease.
   */
  static CompletableFuture<Optional<LeaseGrant>> acquireAsync(
      LockProvider provider, String id, Duration wait) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return provider.acquire(request(id, Duration.ofSeconds(30)), wait);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  static LockRequest request(String lockId, Duration ttl) {
    return new LockRequest(lockId, OwnerTokens.newToken(), ttl, "test/" + lockId);
  }

  /** A lock id no other call returns; owner tokens share a per-process prefix, so not theirs. */
  static String lockId() {
    return "lock-" + unique(10);
  }

  private static String unique(int length) {
    return UUID.randomUUID().toString().replace("-", "").substring(0, length);
  }
}
