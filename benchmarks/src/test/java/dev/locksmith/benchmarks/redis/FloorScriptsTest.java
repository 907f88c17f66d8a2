package dev.locksmith.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The raw floor runs the provider's own scripts with the provider's keys and arguments: a lock it
 * takes is one the provider sees held, and its release frees it for the provider.
 */
class FloorScriptsTest {
  @Test
  void theFloorTakesAndReleasesTheProvidersOwnLock() {
    RedissonClient client = RedisClients.create(TestRedis.sharedUrl(), 2);
    RedisLockOptions options =
        new RedisLockOptions("floor-test", false, 0, RedisLockOptions.DEFAULT_REPLICA_TIMEOUT);
    try (RedisLockProvider provider = RedisLockProvider.create(client, options)) {
      FloorScripts floor = new FloorScripts(client, "floor-test", "floor");
      String token = OwnerTokens.newToken();

      long fence = floor.acquire(token, 30_000, "floor-test");

      assertThat(fence).as("granted with a fencing token").isPositive();
      assertThat(provider.status("floor").holder()).as("held, as the provider sees it").isNotNull();
      assertThat(floor.acquire(OwnerTokens.newToken(), 30_000, "other")).isEqualTo(-1);
      assertThat(floor.release(token, fence)).isTrue();
      assertThat(provider.status("floor").holder()).as("free after the release").isNull();
    } finally {
      client.shutdown();
    }
  }
}
