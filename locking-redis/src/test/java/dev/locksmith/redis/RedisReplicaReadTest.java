package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/** The status script is read-only, so a client that reads from replicas asks a replica. */
class RedisReplicaReadTest {

  @Test
  void statusIsAReadOnlyScriptServedByAReplica() throws Exception {
    try (RedisServerProcess primary = TestRedis.startDedicated();
        RedisServerProcess replica =
            TestRedis.startDedicated(
                "--replicaof", primary.host(), Integer.toString(primary.port()))) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  String.valueOf(replica.call("INFO", "replication"))
                      .contains("master_link_status:up"));
      Config config = new Config().setThreads(2).setNettyThreads(4);
      config
          .useMasterSlaveServers()
          .setMasterAddress(primary.url())
          .addSlaveAddress(replica.url())
          .setReadMode(ReadMode.SLAVE);
      RedissonClient client = Redisson.create(config);
      try (RedisLockProvider provider =
          RedisLockProvider.create(client, RedisLockOptions.defaults())) {
        String id = lockId();
        LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofMinutes(1))).orElseThrow();
        LockStatus status =
            await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> provider.status(id), s -> s.currentHolder().isPresent());
        assertThat(status.holder().fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(String.valueOf(replica.call("INFO", "commandstats")))
            .as("the status script ran on the replica")
            .containsPattern("cmdstat_eval(sha)?(_ro)?:calls=[1-9]");
        assertThat(provider.release(lease)).isTrue();
      } finally {
        client.shutdown();
      }
    }
  }
}
