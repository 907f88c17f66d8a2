package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one node of a Redis Cluster says of the cluster: {@code CLUSTER NODES}, {@code INFO}, {@code
 * ROLE}.
 */
final class ClusterView {
  private ClusterView() {}

  /** The fields of each line of the node's {@code CLUSTER NODES}. */
  static List<String[]> nodeLines(RedisServerProcess node) throws IOException {
    List<String[]> lines = new ArrayList<>();
    for (String line : String.valueOf(node.call("CLUSTER", "NODES")).split("\n")) {
      if (!line.isBlank()) {
        lines.add(line.strip().split(" "));
      }
    }
    return lines;
  }

  /** How many nodes the node knows past the handshake, with an address. */
  static int knownNodes(RedisServerProcess node) throws IOException {
    int known = 0;
    for (String[] fields : nodeLines(node)) {
      if (!fields[2].contains("handshake") && !fields[2].contains("noaddr")) {
        known++;
      }
    }
    return known;
  }

  /** How many replicas not marked failing the node knows. */
  static int replicasKnown(RedisServerProcess node) throws IOException {
    int replicas = 0;
    for (String[] fields : nodeLines(node)) {
      if (fields[2].contains("slave") && !fields[2].contains("fail")) {
        replicas++;
      }
    }
    return replicas;
  }

  /** Whether the node says {@code cluster_state:ok}. */
  static boolean stateOk(RedisServerProcess node) throws IOException {
    return String.valueOf(node.call("CLUSTER", "INFO")).contains("cluster_state:ok");
  }

  /** Whether the node says it is a master ({@code ROLE}). */
  static boolean isMaster(RedisServerProcess node) throws IOException {
    return node.call("ROLE") instanceof List<?> role && "master".equals(role.get(0));
  }
}
