package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Sentinel set-up of child processes on free loopback ports, all from one {@code redis-server}
 * binary: a master, two replicas ({@code --replicaof}) and three Sentinels ({@code --sentinel})
 * that monitor the master as {@value #MASTER_NAME} with quorum 2, {@code down-after-milliseconds}
 * 1000 and {@code failover-timeout} 3000, so that a killed master is replaced within a few seconds.
 * Any member can be killed ({@link RedisServerProcess#stop}, SIGKILL) and restarted on its port;
 * the Sentinels tell which data node is the master now.
 *
 * <p>{@link #start} returns once the replicas are in sync and every Sentinel knows both replicas
 * and the two other Sentinels, so that a failover can be agreed on from the first kill.
 */
public final class RedisSentinelTopology implements AutoCloseable {
  /** The name the Sentinels monitor the master under. */
  public static final String MASTER_NAME = "locksmith";

  private static final Logger LOG = LoggerFactory.getLogger(RedisSentinelTopology.class);
  private static final Duration CALL = Duration.ofSeconds(2);
  private static final Duration READY = Duration.ofSeconds(30);

  private final List<RedisServerProcess> dataNodes;
  private final List<RedisServerProcess> sentinels;

  private RedisSentinelTopology(
      List<RedisServerProcess> dataNodes, List<RedisServerProcess> sentinels) {
    this.dataNodes = dataNodes;
    this.sentinels = sentinels;
  }

  /**
   * Starts the set-up from the test kit's binary ({@link RedisBinaries#find}).
   *
   * @return the running topology
   */
  public static RedisSentinelTopology start() {
    return start(RedisBinaries.find());
  }

  /**
   * Starts the set-up from {@code binary} and waits until it is ready to fail over.
   *
   * @param binary the redis-server binary
   * @return the running topology
   */
  public static RedisSentinelTopology start(Path binary) {
    List<RedisServerProcess> data = new ArrayList<>();
    List<RedisServerProcess> sentinels = new ArrayList<>();
    RedisSentinelTopology topology = new RedisSentinelTopology(data, sentinels);
    try {
      RedisServerProcess master = RedisServerProcess.start(binary);
      data.add(master);
      for (int i = 0; i < 2; i++) {
        data.add(
            RedisServerProcess.start(
                binary, "--replicaof", "127.0.0.1", Integer.toString(master.port())));
      }
      long offset = Probe.offset(master);
      Probe.await(
          "both replicas in sync with " + master,
          READY,
          () -> Probe.acknowledged(master, offset, 2));
      String config =
          String.join(
              "\n",
              "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
              "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
              "sentinel failover-timeout " + MASTER_NAME + " 3000",
              "sentinel parallel-syncs " + MASTER_NAME + " 1",
              "");
      for (int i = 0; i < 3; i++) {
        sentinels.add(RedisServerProcess.startWithConfig(binary, config, "--sentinel"));
      }
      for (RedisServerProcess sentinel : sentinels) {
        Probe.await(
            sentinel + " knowing 2 replicas and 2 other sentinels",
            READY,
            () ->
                size(sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME)) == 2
                    && size(sentinel.call("SENTINEL", "SENTINELS", MASTER_NAME)) == 2);
      }
      LOG.info(
          "Sentinel set-up ready: master {}, replicas {}, sentinels {}",
          master.port(),
          data.subList(1, 3).stream().map(RedisServerProcess::port).toList(),
          sentinels.stream().map(RedisServerProcess::port).toList());
      return topology;
    } catch (IOException | RuntimeException e) {
      topology.close();
      throw new IllegalStateException("cannot start the Sentinel set-up: " + e.getMessage(), e);
    }
  }

  private static int size(@Nullable Object reply) {
    return reply instanceof List<?> list ? list.size() : -1;
  }

  /**
   * The master and the two replicas, in the order they were started (the first was master).
   *
   * @return the master and the two replicas, in the order they were started (the first was master)
   */
  public List<RedisServerProcess> dataNodes() {
    return List.copyOf(dataNodes);
  }

  /**
   * The three Sentinels.
   *
   * @return the three Sentinels
   */
  public List<RedisServerProcess> sentinels() {
    return List.copyOf(sentinels);
  }

  /**
   * The Sentinels' addresses as clients take them, {@code redis://127.0.0.1:PORT}.
   *
   * @return the Sentinels' addresses as clients take them, {@code redis://127.0.0.1:PORT}
   */
  public List<String> sentinelAddresses() {
    return sentinels.stream().map(RedisServerProcess::url).toList();
  }

  /**
   * The port of the master as the first running Sentinel that answers reports it ({@code SENTINEL
   * GET-MASTER-ADDR-BY-NAME}).
   *
   * @return the port of the master as the first running Sentinel that answers reports it ({@code
   *     SENTINEL GET-MASTER-ADDR-BY-NAME})
   * @throws IOException when no Sentinel answers
   */
  public int masterPort() throws IOException {
    IOException last = new IOException("no Sentinel runs");
    for (RedisServerProcess sentinel : sentinels) {
      if (!sentinel.isRunning()) {
        continue;
      }
      try {
        return reportedMaster(sentinel);
      } catch (IOException e) {
        last = e;
      }
    }
    throw last;
  }

  private static int reportedMaster(RedisServerProcess sentinel) throws IOException {
    Object reply =
        RespClient.call(
            sentinel.host(),
            sentinel.port(),
            CALL,
            "SENTINEL",
            "GET-MASTER-ADDR-BY-NAME",
            MASTER_NAME);
    if (!(reply instanceof List<?> address) || address.size() != 2) {
      throw new IOException(sentinel + " knows no master " + MASTER_NAME + ": " + reply);
    }
    return Integer.parseInt(String.valueOf(address.get(1)));
  }

  /**
   * The data node the Sentinels report as master.
   *
   * @return the master
   * @throws IOException when no sentinel answers
   */
  public RedisServerProcess master() throws IOException {
    return dataNode(masterPort());
  }

  /**
   * The data node on {@code port}.
   *
   * @param port the node's port
   * @return the node
   */
  public RedisServerProcess dataNode(int port) {
    return dataNodes.stream()
        .filter(node -> node.port() == port)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no data node on port " + port));
  }

  /**
   * Waits until the master's writes up to now reached every running replica that follows it (the
   * offset {@code WAIT} waits for, read from {@code INFO replication}).
   *
   * @param timeout the longest wait
   * @throws IOException when a node does not answer
   */
  public void awaitReplicated(Duration timeout) throws IOException {
    RedisServerProcess master = master();
    long offset = Probe.offset(master);
    int replicas = (int) dataNodes.stream().filter(n -> n != master && n.isRunning()).count();
    Probe.await(
        "the writes of " + master + " up to offset " + offset + " on " + replicas + " replicas",
        timeout,
        () -> Probe.acknowledged(master, offset, replicas));
  }

  /**
   * Waits until every running Sentinel reports a master other than the one on {@code oldPort}, and
   * that node calls itself master ({@code ROLE}).
   *
   * @param oldPort the port of the master that was stopped
   * @param timeout the longest wait
   * @return the new master
   */
  public RedisServerProcess awaitFailover(int oldPort, Duration timeout) {
    int[] port = new int[1];
    Probe.await(
        "a failover away from port " + oldPort,
        timeout,
        () -> {
          int agreed = -1;
          for (RedisServerProcess sentinel : sentinels) {
            if (!sentinel.isRunning()) {
              continue;
            }
            int reported = reportedMaster(sentinel);
            if (reported == oldPort || (agreed >= 0 && reported != agreed)) {
              return false;
            }
            agreed = reported;
          }
          if (agreed < 0) {
            return false;
          }
          Object role = dataNode(agreed).call("ROLE");
          port[0] = agreed;
          return role instanceof List<?> list && "master".equals(list.get(0));
        });
    return dataNode(port[0]);
  }

  /** Kills every process and deletes their directories. */
  @Override
  public void close() {
    sentinels.forEach(RedisServerProcess::close);
    dataNodes.forEach(RedisServerProcess::close);
  }
}
