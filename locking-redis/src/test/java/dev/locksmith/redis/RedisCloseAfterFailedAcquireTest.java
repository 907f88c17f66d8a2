package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code locksmith run} closes its provider right after an acquire failed. The compensating release
 * of that acquire must run before the client is shut down, or the lock the lost acquire took stays
 * held for its whole TTL.
 */
class RedisCloseAfterFailedAcquireTest {
  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void closeRightAfterAFailedAcquireStillFreesTheLock() throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      String prefix = "closed" + lockId().substring(5);
      String id = lockId();
      LockKeys keys = LockKeys.of(prefix, id);
      RedisLockProvider provider = RedisLockProvider.create(RedisTests.proxiedUrl(proxy, prefix));
      try {
        // Connected, the acquire script loaded; the compensating script is not loaded yet.
        LeaseGrant warmUp = provider.tryAcquire(request(lockId(), LONG)).orElseThrow();
        assertThat(provider.release(warmUp)).isTrue();

        // The acquire runs on the server; its reply never arrives.
        proxy.freeze(FaultProxy.Direction.TO_CLIENT);
        assertThatThrownBy(() -> provider.tryAcquire(request(id, LONG)))
            .isInstanceOf(LockProviderException.class);
        assertThat(call(server, "EXISTS", keys.lock()))
            .as("the lost acquire took the lock")
            .isEqualTo(1L);
        // Replies flow again, each 400 ms late: the compensation's NOSCRIPT, its SCRIPT LOAD and
        // its second EVALSHA are answered after close() has begun.
        proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(400));
        proxy.thaw(FaultProxy.Direction.TO_CLIENT);
      } finally {
        provider.close();
      }
      assertThat(call(server, "HGET", keys.lock(), "token"))
          .as("the compensating release ran before close() returned")
          .isNull();
    }
  }

  private static Object call(URI server, String... command) throws Exception {
    return RespClient.call(server.getHost(), server.getPort(), Duration.ofSeconds(5), command);
  }
}
