package dev.locksmith.testkit.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
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
