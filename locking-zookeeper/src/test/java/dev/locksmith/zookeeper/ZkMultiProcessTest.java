package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs contend for one lock through a {@code zk:} URL, each doing read-modify-write
 * sections on a shared counter file: no overlap, fencing tokens rising with start time, no lost
 * update.
 */
class ZkMultiProcessTest {

  @Test
  void separateJvmsNeverOverlap(@TempDir Path dir) throws Exception {
    try (TestingServer server = TestZooKeeper.start(Files.createDirectories(dir.resolve("zk")))) {
      String url = ZkTestServers.url(server.getConnectString(), "processes", "");
      MultiProcessHarness.Result result = MultiProcessHarness.run(url, 3, 20, dir);
      assertThat(result.violations()).isEmpty();
      assertThat(result.counter()).isEqualTo(60);
    }
  }

  /**
   * Random transfers among accounts, each taking both accounts' locks in one call: no deadlock, no
   * overlap per account, rising tokens, money conserved.
   */
  @Test
  void transfersOverTwoKeysInFourJvmsNeverDeadlockOrOverlap(@TempDir Path dir) throws Exception {
    try (TestingServer server = TestZooKeeper.start(Files.createDirectories(dir.resolve("zk")))) {
      String url = ZkTestServers.url(server.getConnectString(), "transfers", "");
      TransferHarness.Result result = TransferHarness.run(url, dir.resolve("transfers"));
      System.out.println("zookeeper: " + result.figures());
      assertThat(result.violations()).isEmpty();
      assertThat(result.transfers()).isEqualTo(120);
    }
  }
}
