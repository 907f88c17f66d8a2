package dev.locksmith.cli;

import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith run --url zk://127.0.0.1:PORT/...} in JVMs of their own against a real ZooKeeper
 * server (the test kit's, on 127.0.0.1): while one run's COMMAND holds the lock, a second run on
 * the same key with --fail exits 75 without starting its COMMAND; after the first ends, it runs
 * with a higher fencing token (the lease node's creation zxid).
 */
class RunOnZooKeeperTest {
  @TempDir Path dir;

  @Test
  void secondRunIsRefusedWhileTheFirstHoldsAndRunsAfterIt() throws Exception {
    try (TestingServer server = TestZooKeeper.start()) {
      new TwoRunsOnOneKey(dir, "zk://" + server.getConnectString() + "/cli", "cli-zk")
          .assertSecondIsRefusedWhileTheFirstHoldsAndRunsAfterIt();
    }
  }
}
