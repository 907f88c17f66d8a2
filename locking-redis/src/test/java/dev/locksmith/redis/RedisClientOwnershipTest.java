package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.redis.RedisBinaries;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

class RedisClientOwnershipTest {

  private static RedissonClient client(String url) {
    Config config = new Config().setThreads(2).setNettyThreads(4);
    config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(1);
    return Redisson.create(config);
  }

  @Test
  void aSuppliedClientIsUsedAndLeftOpen() {
    RedissonClient client = client(TestRedis.sharedUrl());
    try {
      RedisLockProvider provider =
          RedisLockProvider.create(client, RedisLockOptions.defaults().withPrefix("supplied"));
      String id = lockId();
      LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(client.getKeys().countExists(LockKeys.of("supplied", id).lock())).isEqualTo(1);
      assertThat(provider.release(lease)).isTrue();
      assertThat(provider.description()).contains("prefix supplied");

      provider.close();
      assertThat(client.isShutdown()).as("client shut down by the provider").isFalse();
      assertThat(client.getBucket("still-usable-" + id).isExists()).isFalse();
      assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(1))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aProviderCreatedFromAUrlShutsItsClientDown() {
    RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl());
    provider.close();
    assertThatThrownBy(() -> provider.status(lockId())).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theRedisBinaryEmbeddedInTheTestKitServesTheProvider() throws Exception {
    // The last fallback of TestRedis, used on a machine with only a JDK.
    try (RedisServerProcess embedded = TestRedis.startDedicated(RedisBinaries.embedded());
        RedisLockProvider provider = RedisLockProvider.create(embedded.url())) {
      String id = lockId();
      LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(provider.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
      assertThat(provider.release(lease)).isTrue();
      assertThat(String.valueOf(embedded.call("INFO", "server"))).contains("redis_version:6.");
    }
  }
}
