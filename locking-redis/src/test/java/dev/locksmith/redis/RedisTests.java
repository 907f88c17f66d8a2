package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

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
   * A provider through {@code proxy} with {@code prefix} ({@link #proxiedUrl}) that has run its
   * acquire and release scripts once, so that the server has loaded them while every reply still
   * arrives.
   */
  static RedisLockProvider throughProxy(FaultProxy proxy, String prefix) {
    RedisLockProvider provider = RedisLockProvider.create(proxiedUrl(proxy, prefix));
    LeaseGrant warmUp = provider.tryAcquire(request(lockId(), Duration.ofMinutes(5))).orElseThrow();
    assertThat(provider.release(warmUp)).as("warm-up release").isTrue();
    return provider;
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

  /**
   * Calls so far of {@code commands} (lower case, such as {@code evalsha}), summed, from a server's
   * reply to {@code INFO commandstats}.
   */
  static long calls(@Nullable Object commandstats, String... commands) {
    Matcher matcher =
        Pattern.compile("cmdstat_(?:" + String.join("|", commands) + "):calls=(\\d+)")
            .matcher(String.valueOf(commandstats));
    long calls = 0;
    while (matcher.find()) {
      calls += Long.parseLong(matcher.group(1));
    }
    return calls;
  }

  /** {@code EVAL} and {@code EVALSHA} calls so far, from a reply to {@code INFO commandstats}. */
  static long scriptRuns(@Nullable Object commandstats) {
    return calls(commandstats, "eval", "evalsha");
  }

  /** A lock id no other call returns; owner tokens share a per-process prefix, so not theirs. */
  static String lockId() {
    return "lock-" + unique(10);
  }

  private static String unique(int length) {
    return UUID.randomUUID().toString().replace("-", "").substring(0, length);
  }
}
