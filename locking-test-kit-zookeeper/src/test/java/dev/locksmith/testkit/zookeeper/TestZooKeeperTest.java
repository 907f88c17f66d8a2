package dev.locksmith.testkit.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestZooKeeperTest {

  @Test
  void serverListensOnLoopbackOnly() throws Exception {
    try (TestingServer server = TestZooKeeper.start()) {
      assertThat(server.getConnectString()).isEqualTo("127.0.0.1:" + server.getPort());
      assertThat(Files.exists(server.getTempDirectory().toPath())).isTrue();
    }
  }

  @Test
  void restartKeepsPortAndData(@TempDir Path dir) throws Exception {
    try (TestingServer server = TestZooKeeper.start(dir)) {
      int port = server.getPort();
      write(server.getConnectString(), "/kept");
      server.stop();
      server.restart();
      assertThat(server.getPort()).isEqualTo(port);
      assertThat(exists(server.getConnectString(), "/kept")).isTrue();
    }
    assertThat(dir).isNotEmptyDirectory();
  }

  @Test
  void clusterHasDistinctPortsAndOneLeader() throws Exception {
    try (TestingCluster cluster = TestZooKeeper.cluster(3)) {
      Set<Integer> ports = new HashSet<>();
      for (InstanceSpec spec : cluster.getInstances()) {
        ports.add(spec.getPort());
        ports.add(spec.getQuorumPort());
        ports.add(spec.getElectionPort());
        assertThat(spec.getHostname()).isEqualTo("127.0.0.1");
      }
      assertThat(ports).hasSize(9);
      write(cluster.getConnectString(), "/elected"); // a write commits only through a leader
      assertThat(cluster.getInstances()).contains(TestZooKeeper.leader(cluster));
    }
  }

  /**
   * A member whose election port is taken when it starts: ZooKeeper gives up after three tries, a
   * second apart, and ends the JVM with exit code 14, the whole test run with it; here the member
   * keeps trying and binds the port once it is free.
   */
  @Test
  void aMemberWhoseElectionPortIsTakenBindsItOnceFree() throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      specs.add(TestZooKeeper.spec(null, true, id));
    }
    int election = specs.get(2).getElectionPort();
    ServerSocket taken = new ServerSocket();
    taken.bind(new InetSocketAddress("127.0.0.1", election));
    try (TestingCluster cluster = new TestingCluster(specs)) {
      try {
        cluster.start();
        List<InstanceSpec> others = specs.subList(0, 2);
        await().atMost(Duration.ofSeconds(20)).until(() -> serving(others));
        // Past the three tries, a second apart, after which ZooKeeper would end this JVM.
        await()
            .during(Duration.ofSeconds(4))
            .atMost(Duration.ofSeconds(10))
            .until(() -> serving(others));
      } finally {
        taken.close();
      }
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> answers(election));
      write(cluster.getConnectString(), "/after-the-port-was-freed");
    }
  }

  private static boolean serving(List<InstanceSpec> members) throws Exception {
    for (InstanceSpec member : members) {
      if (!TestZooKeeper.fourLetterWord(member.getPort(), "srvr").contains("Mode: ")) {
        return false;
      }
    }
    return true;
  }

  private static boolean answers(int port) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      return socket.isConnected();
    }
  }

  @Test
  void emptyClusterIsRefused() {
    assertThatThrownBy(() -> TestZooKeeper.cluster(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not 0");
  }

  private static void write(String connect, String path) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            connect,
            10_000,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    try {
      assertThat(connected.await(20, TimeUnit.SECONDS)).as("connected to " + connect).isTrue();
      zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } finally {
      zk.close();
    }
  }

  private static boolean exists(String connect, String path) throws Exception {
    ZooKeeper zk = new ZooKeeper(connect, 10_000, event -> {});
    try {
      return zk.exists(path, false) != null;
    } finally {
      zk.close();
    }
  }
}
