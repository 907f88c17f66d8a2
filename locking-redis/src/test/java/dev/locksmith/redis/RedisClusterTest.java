package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real Redis in cluster mode: key slots, and the provider through a Redisson YAML file. */
class RedisClusterTest {
  private static RedisServerProcess node;

  @BeforeAll
  static void startSingleNodeCluster() throws Exception {
    node =
        TestRedis.startDedicated("--cluster-enabled", "yes", "--cluster-announce-ip", "127.0.0.1");
    List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
    for (int slot = 0; slot < 16_384; slot++) {
      addSlots.add(Integer.toString(slot));
    }
    node.call(addSlots.toArray(String[]::new));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> String.valueOf(node.call("CLUSTER", "INFO")).contains("cluster_state:ok"));
  }

  @AfterAll
  static void stopCluster() {
    node.close();
  }

  @Test
  void allKeysOfOneLockHashToOneSlot() throws Exception {
    List<String> ids =
        List.of("a", "orders:42", "user:{7}", "}", "{", "{}", "%7B", "x}y{z", "ключ", "a b");
    List<Long> slots = new ArrayList<>();
    for (String id : ids) {
      LockKeys keys = LockKeys.of("locksmith", id);
      long slot = (Long) node.call("CLUSTER", "KEYSLOT", keys.lock());
      assertThat(node.call("CLUSTER", "KEYSLOT", keys.fence())).as(id).isEqualTo(slot);
      assertThat(node.call("CLUSTER", "KEYSLOT", keys.channel())).as(id).isEqualTo(slot);
      slots.add(slot);
    }
    assertThat(slots.stream().distinct().count()).as("ids spread over slots").isGreaterThan(1);
    assertThat(LockKeys.of("p", "{").lock()).isNotEqualTo(LockKeys.of("p", "%7B").lock());
  }

  @Test
  void theProviderWorksOnAClusterConfiguredByYaml(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("redisson.yaml");
    Files.writeString(
        yaml,
        """
        threads: 2
        nettyThreads: 4
        clusterServersConfig:
          timeout: 2000
          connectTimeout: 2000
          masterConnectionMinimumIdleSize: 1
          slaveConnectionMinimumIdleSize: 1
          subscriptionConnectionMinimumIdleSize: 1
          nodeAddresses:
          - "redis://127.0.0.1:%d"
        """
            .formatted(node.port()));
    try (RedisLockProvider first = RedisLockProvider.create("redis://" + yaml + "?prefix=c");
        RedisLockProvider second = RedisLockProvider.create("redis:///?config=" + yaml)) {
      String id = lockId();
      LeaseGrant held = first.tryAcquire(request(id, Duration.ofMinutes(5))).orElseThrow();
      assertThat(node.call("EXISTS", LockKeys.of("c", id).lock())).isEqualTo(1L);
      CompletableFuture<Optional<LeaseGrant>> waiter =
          RedisTests.acquireAsync(first, id, Duration.ofMinutes(1));
      await().atMost(Duration.ofSeconds(10)).until(() -> first.subscribedChannels() == 1);
      assertThat(first.renew(held, Duration.ofMinutes(5))).isPresent();
      assertThat(first.release(held)).isTrue();
      LeaseGrant next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(second.status(id).currentHolder()).as("other prefix, other lock").isEmpty();
      assertThat(first.release(next)).isTrue();
    }
  }
}
