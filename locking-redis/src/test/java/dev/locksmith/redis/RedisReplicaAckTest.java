package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.testkit.redis.RedisReplicaPair;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * {@code replicas=1}: a grant counts only once a replica acknowledged it (Redis {@code WAIT} on the
 * script's connection); without the replica the grant is refused within the replica timeout and
 * nothing stays held.
 */
class RedisReplicaAckTest {
  private static final Duration REPLICA_TIMEOUT = Duration.ofMillis(200);
  private static final Duration TTL = Duration.ofMinutes(1);

  @Test
  void grantsNeedTheReplicasAcknowledgement() throws Exception {
    try (RedisReplicaPair pair = RedisReplicaPair.start()) {
      RedisServerProcess master = pair.master();
      RedisServerProcess replica = pair.replica();
      Config config = new Config().setThreads(2).setNettyThreads(4);
      config.useSingleServer().setAddress(master.url()).setTimeout(1000).setRetryAttempts(0);
      RedissonClient client = Redisson.create(config);
      try (RedisLockProvider provider =
          RedisLockProvider.create(
              client, RedisLockOptions.defaults().withReplicas(1, REPLICA_TIMEOUT))) {
        // With the replica up: granted, renewed (one and a batch), released; a set too.
        String id = lockId();
        LeaseGrant lease = provider.tryAcquire(request(id, TTL)).orElseThrow();
        assertThat(replica.call("EXISTS", LockKeys.of("locksmith", id).lock()))
            .as("the replica has the lease when the grant returns")
            .isEqualTo(1L);
        assertThat(provider.renew(lease, TTL)).isPresent();
        assertThat(provider.renewAll(List.of(new RenewalRequest(lease, TTL))))
            .allMatch(Optional::isPresent);
        assertThat(provider.release(lease)).isTrue();
        List<LockRequest> set = List.of(request(lockId(), TTL), request(lockId(), TTL));
        List<LeaseGrant> grants = provider.tryAcquireAll(set).orElseThrow();
        grants.forEach(grant -> assertThat(provider.release(grant)).isTrue());

        LeaseGrant before = provider.tryAcquire(request(lockId(), TTL)).orElseThrow();

        // The replica goes away: grants are refused within the replica timeout, nothing held.
        replica.stop();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    String.valueOf(master.call("INFO", "replication"))
                        .contains("connected_slaves:0"));
        String refused = lockId();
        long start = System.nanoTime();
        assertThatThrownBy(() -> provider.tryAcquire(request(refused, TTL)))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("refused the grant of lock '" + refused + "'")
            .hasMessageContaining("0 of 1 replica(s) acknowledged it within 200ms")
            .hasMessageContaining("released it");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took)
            .as("refused within the replica timeout plus the release's round trip")
            .isGreaterThanOrEqualTo(REPLICA_TIMEOUT)
            .isLessThan(REPLICA_TIMEOUT.plusSeconds(1));
        assertThat(master.call("HGET", LockKeys.of("locksmith", refused).lock(), "token"))
            .as("nothing stays held")
            .isNull();

        List<String> setIds = List.of(lockId(), lockId());
        assertThatThrownBy(
                () ->
                    provider.tryAcquireAll(
                        List.of(request(setIds.get(0), TTL), request(setIds.get(1), TTL))))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("refused the grant of locks");
        for (String setId : setIds) {
          assertThat(master.call("HGET", LockKeys.of("locksmith", setId).lock(), "token")).isNull();
        }

        assertThatThrownBy(() -> provider.renew(before, TTL))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("refused the renewal of lock '" + before.lockId() + "'");
        assertThat(provider.release(before)).isTrue();
      } finally {
        client.shutdown();
      }
    }
  }
}
