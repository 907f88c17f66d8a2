package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel port given as a single server's URL: the endpoint answers every script with {@code ERR
 * unknown command}. The call must fail within seconds, say what the likely mistake is, and not
 * flood the endpoint with resends.
 */
class RedisNonScriptEndpointTest {
  /** The acquire script alone is over 1 KB; this allows a handful of sends, not a flood. */
  private static final long MAX_INPUT_BYTES = 32 * 1024;

  @Test
  void aSentinelPortFailsFastNamingTheMistakeAndIsNotFlooded() throws Exception {
    try (RedisServerProcess master = TestRedis.startDedicated();
        SentinelProcess sentinel = SentinelProcess.start(master.port())) {
      long before = sentinel.inputBytes();
      try (RedisLockProvider provider =
          RedisLockProvider.create(
              "redis://127.0.0.1:" + sentinel.port() + "?allow-eviction=true")) {
        String id = lockId();
        long start = System.nanoTime();
        CompletableFuture<Object> call =
            CompletableFuture.supplyAsync(
                () -> provider.tryAcquire(request(id, Duration.ofSeconds(30))));
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
            .as("the call ends within 10 s")
            .hasCauseInstanceOf(LockProviderException.class)
            .cause()
            .hasMessageContaining("answered EVAL/EVALSHA with ERR unknown command")
            .hasMessageContaining("Sentinel")
            .hasMessageContaining("sentinelServersConfig")
            .hasMessageContaining("127.0.0.1:" + sentinel.port())
            .hasMessageNotContaining("redis.call")
            .hasMessageNotContaining("\n");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

        assertThatThrownBy(() -> provider.status(id))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("answered EVAL/EVALSHA with ERR unknown command");
      }
      long sent = sentinel.inputBytes() - before;
      assertThat(sent).as("bytes the sentinel read from the provider").isLessThan(MAX_INPUT_BYTES);
    }
  }
}
