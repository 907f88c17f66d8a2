package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.redis.RedisSentinelTopology;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11 (Redis Sentinel): a master, two replicas and three Sentinels ({@link
 * RedisSentinelTopology}); the provider is configured through a Redisson YAML file naming the
 * Sentinels. A client holds a lock, three waiters wait for it; once the lock's keys are on both
 * replicas (the master's replication offset acknowledged by each, what {@code WAIT 2} waits for)
 * the master is killed with SIGKILL and the Sentinels promote a replica. The holder keeps its lease
 * until a renewal on the new master is confirmed, then releases. Must hold: no overlap between the
 * holder's section and the waiters', fencing tokens increasing across the failover, every waiter
 * served within its {@code waitTimeout}.
 */
class RedisSentinelChaosTest {
  private static final String TITLE = "Redis Sentinel: the master killed while a lock is held";
  private static final Duration FAILOVER_BOUND = Duration.ofSeconds(20);

  @Test
  void aFailoverKeepsTheReplicatedLockAndServesTheWaiters() throws Exception {
    Path dir = WorkDirs.fresh("11-sentinel-redis");
    String lockId = "sentinel-failover";
    String key = "locksmith:{" + lockId + "}:lock";
    List<String> checks = new ArrayList<>();
    FailoverRound.Result result;
    try (RedisSentinelTopology topology = RedisSentinelTopology.start()) {
      String url =
          RedissonYaml.sentinelUrl(
              dir, RedisSentinelTopology.MASTER_NAME, topology.sentinelAddresses());
      RedisServerProcess master = topology.master();
      result =
          FailoverRound.run(
              url,
              lockId,
              () -> {
                topology.awaitReplicated(Duration.ofSeconds(10));
                for (RedisServerProcess node : topology.dataNodes()) {
                  if (!Long.valueOf(1).equals(node.call("EXISTS", key))) {
                    checks.add("the lock key was not on " + node + " before the kill");
                  }
                }
              },
              master::stop,
              () -> topology.awaitFailover(master.port(), FAILOVER_BOUND),
              () -> {
                long count = 0;
                for (RedisServerProcess node : topology.dataNodes()) {
                  List<?> reply =
                      (List<?>)
                          node.call("PUBSUB", "NUMSUB", "locksmith:{" + lockId + "}:released");
                  count += (Long) reply.get(1);
                }
                return count;
              });
    }
    List<String> violations = new ArrayList<>(checks);
    violations.addAll(result.violations());
    Figures figures =
        result.figures("Sentinel: 1 master + 2 replicas + 3 sentinels (quorum 2, down after 1 s)");
    ChaosReport.record(11, TITLE, Backend.Kind.REDIS, figures, violations);
    assertThat(violations).as("see %s", dir).isEmpty();
  }
}
