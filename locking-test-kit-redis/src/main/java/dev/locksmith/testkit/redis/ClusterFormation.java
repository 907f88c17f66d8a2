package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Forms a Redis Cluster of new child processes with plain commands: starts the nodes, gives each
 * master a third of the slots, introduces the nodes to each other ({@code CLUSTER MEET}), makes the
 * rest replicas ({@code CLUSTER REPLICATE}) and waits until every node says {@code
 * cluster_state:ok} and each master's replica is in sync.
 */
final class ClusterFormation {
  private static final Duration READY = Duration.ofSeconds(30);

  private ClusterFormation() {}

  /**
   * Starts {@code 2 * masters} nodes into {@code nodes} (masters first, then their replicas in the
   * same order), their ids into {@code ids}, and forms the cluster; the caller closes the nodes
   * started when this throws.
   */
  static void form(
      Path binary, int masters, List<RedisServerProcess> nodes, Map<RedisServerProcess, String> ids)
      throws IOException {
    for (int i = 0; i < 2 * masters; i++) {
      RedisServerProcess node =
          RedisServerProcess.start(
              binary,
              "--cluster-enabled",
              "yes",
              "--cluster-node-timeout",
              "1000",
              "--cluster-config-file",
              "nodes.conf",
              // A replica takes over however long ago it last heard from its master.
              "--cluster-replica-validity-factor",
              "0");
      nodes.add(node);
      ids.put(node, String.valueOf(node.call("CLUSTER", "MYID")));
    }
    for (int m = 0; m < masters; m++) {
      int first = m * RedisClusterTopology.SLOTS / masters;
      int last = (m + 1) * RedisClusterTopology.SLOTS / masters - 1;
      List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
      for (int slot = first; slot <= last; slot++) {
        command.add(Integer.toString(slot));
      }
      nodes.get(m).call(command.toArray(String[]::new));
    }
    RedisServerProcess seed = nodes.get(0);
    for (RedisServerProcess node : nodes.subList(1, nodes.size())) {
      seed.call("CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
    }
    for (RedisServerProcess node : nodes) {
      Probe.await(
          node + " knowing all six nodes",
          READY,
          () -> ClusterView.knownNodes(node) == nodes.size());
    }
    for (int m = 0; m < masters; m++) {
      nodes
          .get(masters + m)
          .call("CLUSTER", "REPLICATE", Objects.requireNonNull(ids.get(nodes.get(m))));
    }
    for (RedisServerProcess node : nodes) {
      Probe.await(
          node + " with cluster_state:ok and three replicas known",
          READY,
          () -> ClusterView.stateOk(node) && ClusterView.replicasKnown(node) == masters);
    }
    for (int m = 0; m < masters; m++) {
      RedisServerProcess master = nodes.get(m);
      long offset = Probe.offset(master);
      Probe.await(
          "the replica of " + master + " in sync",
          READY,
          () -> Probe.acknowledged(master, offset, 1));
    }
  }
}
