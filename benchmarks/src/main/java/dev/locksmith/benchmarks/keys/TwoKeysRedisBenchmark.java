package dev.locksmith.benchmarks.keys;

import dev.locksmith.benchmarks.redis.RedisClients;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/** {@link TwoKeysBenchmark} on the Redis provider, against a {@code redis-server} of its own. */
public class TwoKeysRedisBenchmark extends TwoKeysBenchmark {
  private @Nullable RedisServerProcess redis;
  private @Nullable RedissonClient redisson;

  @Override
  LockProvider startProvider() {
    RedisServerProcess server = TestRedis.startDedicated();
    redis = server;
    RedissonClient client = RedisClients.create(server.url(), 4);
    redisson = client;
    return RedisLockProvider.create(client, new RedisLockOptions("bench-keys"));
  }

  @Override
  void stopServer() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }
}
