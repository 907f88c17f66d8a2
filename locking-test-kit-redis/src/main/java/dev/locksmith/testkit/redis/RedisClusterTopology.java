package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster of child processes on free loopback ports, all from one {@code redis-server}
 * binary: three masters owning the 16384 slots in three ranges and one replica each, {@code
 * cluster-node-timeout} 1000 ms, so that a killed master's replica takes over within a few seconds.
 * Built with plain commands ({@code CLUSTER ADDSLOTS}, {@code MEET}, {@code REPLICATE}), no {@code
 * redis-cli}. Nodes can be killed ({@link RedisServerProcess#stop}, SIGKILL) and restarted (each
 * keeps its {@code nodes.conf}, so it rejoins as itself), and a slot can be moved to another master
 * with its keys ({@link #migrateSlot}).
 *
 * <p>{@link #start} returns once every node says {@code cluster_state:ok}, knows all six nodes and
 * each master's replica is in sync.
 */
public final class RedisClusterTopology implements AutoCloseable {
  /** The number of hash slots. */
  public static final int SLOTS = 16384;

  private static final Logger LOG = LoggerFactory.getLogger(RedisClusterTopology.class);
  private static final int MASTERS = 3;

  private final List<RedisServerProcess> nodes;
  private final Map<RedisServerProcess, String> ids = new HashMap<>();

  private RedisClusterTopology(List<RedisServerProcess> nodes) {
    this.nodes = nodes;
  }

  /**
   * Starts the cluster from the test kit's binary ({@link RedisBinaries#find}).
   *
   * @return the running cluster
   */
  public static RedisClusterTopology start() {
    return start(RedisBinaries.find());
  }

  /**
   * Starts the cluster from {@code binary} and waits until it serves every slot.
   *
   * @param binary the redis-server binary
   * @return the running cluster
   */
  public static RedisClusterTopology start(Path binary) {
    List<RedisServerProcess> nodes = new ArrayList<>();
    RedisClusterTopology cluster = new RedisClusterTopology(nodes);
    try {
      ClusterFormation.form(binary, MASTERS, nodes, cluster.ids);
      LOG.info(
          "Redis Cluster ready: masters {}, replicas {}",
          nodes.subList(0, MASTERS).stream().map(RedisServerProcess::port).toList(),
          nodes.subList(MASTERS, nodes.size()).stream().map(RedisServerProcess::port).toList());
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw new IllegalStateException("cannot start the Redis Cluster: " + e.getMessage(), e);
    }
  }

  /**
   * The six nodes: the three first-started masters, then their replicas in the same order.
   *
   * @return the nodes
   */
  public List<RedisServerProcess> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * The nodes' addresses as clients take them, {@code redis://127.0.0.1:PORT}.
   *
   * @return the addresses
   */
  public List<String> nodeAddresses() {
    return nodes.stream().map(RedisServerProcess::url).toList();
  }

  /**
   * The node's cluster id ({@code CLUSTER MYID}), the same across restarts.
   *
   * @param node one of the nodes
   * @return its cluster id
   */
  public String id(RedisServerProcess node) {
    String id = ids.get(node);
    if (id == null) {
      throw new IllegalArgumentException(node + " is not a node of this cluster");
    }
    return id;
  }

  /**
   * The slot of {@code key}, as a running node computes it ({@code CLUSTER KEYSLOT}).
   *
   * @param key the key
   * @return its slot
   * @throws IOException when no node answers
   */
  public int slotOf(String key) throws IOException {
    return (int) (long) (Long) Objects.requireNonNull(running().call("CLUSTER", "KEYSLOT", key));
  }

  /**
   * The master serving {@code slot}, as a running node sees it ({@code CLUSTER SLOTS}).
   *
   * @param slot the slot
   * @return its master
   * @throws IOException when no node answers
   */
  public RedisServerProcess ownerOf(int slot) throws IOException {
    return ownerOf(running(), slot);
  }

  private RedisServerProcess ownerOf(RedisServerProcess asked, int slot) throws IOException {
    Object reply = asked.call("CLUSTER", "SLOTS");
    if (reply instanceof List<?> ranges) {
      for (Object range : ranges) {
        List<?> fields = (List<?>) range;
        long first = (Long) fields.get(0);
        long last = (Long) fields.get(1);
        if (slot >= first && slot <= last) {
          int port = (int) (long) (Long) ((List<?>) fields.get(2)).get(1);
          return node(port);
        }
      }
    }
    throw new IOException(asked + " knows no owner of slot " + slot);
  }

  /**
   * The node on {@code port}.
   *
   * @param port the node's port
   * @return the node
   */
  public RedisServerProcess node(int port) {
    return nodes.stream()
        .filter(node -> node.port() == port)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no cluster node on port " + port));
  }

  private RedisServerProcess running() {
    return nodes.stream()
        .filter(RedisServerProcess::isRunning)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no cluster node runs"));
  }

  /**
   * The running replica that follows {@code master}, if any.
   *
   * @param master one of the masters
   * @return its running replica, if any
   * @throws IOException when a node does not answer
   */
  public @Nullable RedisServerProcess replicaOf(RedisServerProcess master) throws IOException {
    String masterId = id(master);
    for (String[] fields : ClusterView.nodeLines(running())) {
      if (fields[2].contains("slave") && fields[3].equals(masterId)) {
        RedisServerProcess replica = byId(fields[0]);
        if (replica.isRunning()) {
          return replica;
        }
      }
    }
    return null;
  }

  private RedisServerProcess byId(String id) {
    return ids.entrySet().stream()
        .filter(entry -> entry.getValue().equals(id))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no cluster node with id " + id));
  }

  /**
   * Waits until the writes {@code master} took up to now reached its replica (the offset {@code
   * WAIT 1} waits for, read from {@code INFO replication}).
   *
   * @param master one of the masters
   * @param timeout the longest wait
   * @throws IOException when a node does not answer
   */
  public void awaitReplicated(RedisServerProcess master, Duration timeout) throws IOException {
    long offset = Probe.offset(master);
    Probe.await(
        "the writes of " + master + " up to offset " + offset + " on its replica",
        timeout,
        () -> Probe.acknowledged(master, offset, 1));
  }

  /**
   * Waits until every running node says {@code cluster_state:ok} and sees a running master other
   * than {@code killed} serving {@code slot}.
   *
   * @param killed the master that was stopped
   * @param slot a slot it served
   * @param timeout the longest wait
   * @return that master
   */
  public RedisServerProcess awaitFailover(RedisServerProcess killed, int slot, Duration timeout) {
    @Nullable RedisServerProcess[] owner = new RedisServerProcess[1];
    Probe.await(
        "a master other than " + killed + " serving slot " + slot,
        timeout,
        () -> {
          RedisServerProcess agreed = null;
          for (RedisServerProcess node : nodes) {
            if (!node.isRunning()) {
              continue;
            }
            RedisServerProcess seen = ownerOf(node, slot);
            if (!ClusterView.stateOk(node)
                || seen == killed
                || (agreed != null && seen != agreed)) {
              return false;
            }
            agreed = seen;
          }
          owner[0] = agreed;
          return agreed != null && agreed.isRunning();
        });
    // The wait ends only once a running master agreed on.
    return Objects.requireNonNull(owner[0]);
  }

  /**
   * Moves {@code slot} and its keys from the master serving it to {@code target}, as {@code
   * redis-cli --cluster reshard} does: {@code SETSLOT IMPORTING} on the target, {@code MIGRATING}
   * on the source, {@code MIGRATE} of the keys in batches of 100, then {@code SETSLOT NODE} on the
   * target, the source and every other running master.
   *
   * @param slot the slot
   * @param target the master to move it to
   * @return how many keys moved
   * @throws IllegalArgumentException when {@code target} already serves the slot
   * @throws IOException when a node does not answer
   */
  public int migrateSlot(int slot, RedisServerProcess target) throws IOException {
    RedisServerProcess source = ownerOf(slot);
    if (source == target) {
      throw new IllegalArgumentException(target + " already serves slot " + slot);
    }
    String s = Integer.toString(slot);
    target.call("CLUSTER", "SETSLOT", s, "IMPORTING", id(source));
    source.call("CLUSTER", "SETSLOT", s, "MIGRATING", id(target));
    int moved = 0;
    while (true) {
      Object keys = source.call("CLUSTER", "GETKEYSINSLOT", s, "100");
      if (!(keys instanceof List<?> list) || list.isEmpty()) {
        break;
      }
      List<String> command =
          new ArrayList<>(
              List.of(
                  "MIGRATE",
                  target.host(),
                  Integer.toString(target.port()),
                  "",
                  "0",
                  "5000",
                  "KEYS"));
      list.forEach(key -> command.add(String.valueOf(key)));
      source.call(command.toArray(String[]::new));
      moved += list.size();
    }
    target.call("CLUSTER", "SETSLOT", s, "NODE", id(target));
    source.call("CLUSTER", "SETSLOT", s, "NODE", id(target));
    for (RedisServerProcess node : nodes) {
      if (node != source && node != target && node.isRunning() && ClusterView.isMaster(node)) {
        node.call("CLUSTER", "SETSLOT", s, "NODE", id(target));
      }
    }
    LOG.info("slot {} moved from {} to {} with {} keys", slot, source.port(), target.port(), moved);
    return moved;
  }

  /** Kills every node and deletes their directories. */
  @Override
  public void close() {
    nodes.forEach(RedisServerProcess::close);
  }
}
