package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.redis.RedisClusterTopology;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 12 and 13 (Redis Cluster): three masters and three replicas ({@link
 * RedisClusterTopology}); the provider is configured through a Redisson YAML file naming the nodes.
 * A client holds a lock, three waiters wait for it, and once the lock's keys are on the replica of
 * the master serving their slot: that master is killed with SIGKILL and its replica takes over
 * (12), or the slot is moved with its keys to another master (13). The holder keeps its lease until
 * a renewal after the fault is confirmed, then releases. Must hold: no overlap, fencing tokens
 * increasing across the fault, every waiter served within its {@code waitTimeout}; after a
 * migration the holder's lease also survives (it is renewed on the new master).
 */
class RedisClusterChaosTest {
  private static final Duration FAILOVER_BOUND = Duration.ofSeconds(20);

  @Test
  void aKilledMastersReplicaKeepsTheLockAndServesTheWaiters() throws Exception {
    Path dir = WorkDirs.fresh("12-cluster-failover-redis");
    String lockId = "cluster-failover";
    List<String> checks = new ArrayList<>();
    FailoverRound.Result result;
    try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
      int slot = cluster.slotOf(key(lockId));
      RedisServerProcess owner = cluster.ownerOf(slot);
      result =
          FailoverRound.run(
              RedissonYaml.clusterUrl(dir, cluster.nodeAddresses()),
              lockId,
              () -> {
                checkKeyOn(owner, lockId, checks);
                RedisServerProcess replica = cluster.replicaOf(owner);
                cluster.awaitReplicated(owner, Duration.ofSeconds(10));
                if (replica == null) {
                  checks.add(owner + " has no running replica");
                } else {
                  checkSlotCopied(owner, replica, slot, checks);
                }
              },
              owner::stop,
              () -> cluster.awaitFailover(owner, slot, FAILOVER_BOUND),
              () -> subscribers(cluster, lockId));
    }
    report(12, "Redis Cluster: the master of the lock's slot killed", dir, checks, result, false);
  }

  @Test
  void aHeldLockSurvivesTheMigrationOfItsSlot() throws Exception {
    Path dir = WorkDirs.fresh("13-cluster-migration-redis");
    String lockId = "cluster-migration";
    List<String> checks = new ArrayList<>();
    FailoverRound.Result result;
    try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
      int slot = cluster.slotOf(key(lockId));
      RedisServerProcess owner = cluster.ownerOf(slot);
      RedisServerProcess target =
          cluster.nodes().stream().limit(3).filter(node -> node != owner).findFirst().orElseThrow();
      result =
          FailoverRound.run(
              RedissonYaml.clusterUrl(dir, cluster.nodeAddresses()),
              lockId,
              () -> checkKeyOn(owner, lockId, checks),
              () -> {
                int moved = cluster.migrateSlot(slot, target);
                if (moved < 2) {
                  checks.add("the migration moved " + moved + " keys, not the lock and its fence");
                }
              },
              () -> {},
              () -> subscribers(cluster, lockId));
      if (cluster.ownerOf(slot) != target) {
        checks.add("slot " + slot + " is not served by " + target + " after the migration");
      }
    }
    // A migration is not an outage: the cluster redirects every command, so no client may see
    // its provider down (a script unknown to the new owner must not fail the call).
    long downDuringMigration = result.turns().stream().filter(WaiterTurn::rodeOutage).count();
    if (downDuringMigration > 0) {
      checks.add(downDuringMigration + " waiters saw their provider down while the slot migrated");
    }
    report(13, "Redis Cluster: the slot of a held lock migrated", dir, checks, result, true);
  }

  private static String key(String lockId) {
    return "locksmith:{" + lockId + "}:lock";
  }

  private static void checkKeyOn(RedisServerProcess node, String lockId, List<String> checks)
      throws Exception {
    if (!Long.valueOf(1).equals(node.call("EXISTS", key(lockId)))) {
      checks.add("the lock key was not on " + node + " before the fault");
    }
  }

  /** A cluster replica answers reads only after READONLY: the slot's key count is compared. */
  private static void checkSlotCopied(
      RedisServerProcess master, RedisServerProcess replica, int slot, List<String> checks)
      throws Exception {
    Object onMaster = master.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot));
    Object onReplica = replica.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot));
    if (!onMaster.equals(onReplica) || (Long) onMaster < 2) {
      checks.add(
          "slot "
              + slot
              + " holds "
              + onMaster
              + " keys on "
              + master
              + " and "
              + onReplica
              + " on its replica before the kill");
    }
  }

  private static long subscribers(RedisClusterTopology cluster, String lockId) throws Exception {
    long count = 0;
    for (RedisServerProcess node : cluster.nodes()) {
      if (node.isRunning()) {
        List<?> reply =
            (List<?>) node.call("PUBSUB", "NUMSUB", "locksmith:{" + lockId + "}:released");
        count += (Long) reply.get(1);
      }
    }
    return count;
  }

  private static void report(
      int scenario,
      String title,
      Path dir,
      List<String> checks,
      FailoverRound.Result result,
      boolean leaseMustSurvive) {
    List<String> violations = new ArrayList<>(checks);
    if (leaseMustSurvive && (result.lostAt() != 0 || result.renewedAt() == 0)) {
      violations.add("the holder's lease was not renewed after the fault");
    }
    violations.addAll(result.violations());
    Figures figures = result.figures("Cluster: 3 masters + 3 replicas (cluster-node-timeout 1 s)");
    ChaosReport.record(scenario, title, Backend.Kind.REDIS, figures, violations);
    assertThat(violations).as("see %s", dir).isEmpty();
  }
}
