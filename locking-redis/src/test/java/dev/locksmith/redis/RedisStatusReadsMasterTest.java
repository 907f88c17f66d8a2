package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.redis.RedisReplicaPair;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * Status is read from the master, not from a replica that may lag it: a client whose {@code
 * readMode} is {@code SLAVE} (Redisson's default for master/replica, Sentinel and Cluster) still
 * sees a lock right after its acquire.
 */
class RedisStatusReadsMasterTest {

  @Test
  void statusRightAfterAnAcquireSeesTheHolderThoughTheReplicaLags() throws Exception {
    try (RedisReplicaPair pair = RedisReplicaPair.start()) {
      RedisServerProcess primary = pair.master();
      RedisServerProcess replica = pair.replica();
      // The replica stops following: from now on it lags the master by every write.
      pair.detachReplica();
      Config config = new Config().setThreads(2).setNettyThreads(4);
      config
          .useMasterSlaveServers()
          .setMasterAddress(primary.url())
          .addSlaveAddress(replica.url())
          .setReadMode(ReadMode.SLAVE);
      RedissonClient client = Redisson.create(config);
      try (RedisLockProvider provider =
          RedisLockProvider.create(client, RedisLockOptions.defaults())) {
        replica.call("CONFIG", "RESETSTAT");
        String id = lockId();
        LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofMinutes(1))).orElseThrow();
        LockStatus status = provider.status(id);
        assertThat(status.currentHolder())
            .as("the holder, read right after the acquire")
            .isPresent();
        assertThat(status.holder().fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(String.valueOf(replica.call("INFO", "commandstats")))
            .as("no script ran on the replica")
            .doesNotContainPattern("cmdstat_eval");
        assertThat(provider.release(lease)).isTrue();
        assertThat(provider.status(id).currentHolder()).isEmpty();
      } finally {
        client.shutdown();
      }
    }
  }
}
