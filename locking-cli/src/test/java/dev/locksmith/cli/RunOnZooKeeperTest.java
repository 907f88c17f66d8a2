package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith run --url zk://127.0.0.1:PORT/...} in JVMs of their own against a real ZooKeeper
 * server (the test kit's, on 127.0.0.1): while one run's COMMAND holds the lock, a second run on
 * the same key with --fail exits 75 without starting its COMMAND; after the first ends, it runs
 * with a higher fencing token (the lease node's creation zxid). A run stopped by a signal while it
 * waits leaves the queue at once, not when its session times out.
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

  @Test
  void aRunStoppedWhileWaitingLeavesTheQueueAtOnce() throws Exception {
    try (TestingServer server = TestZooKeeper.start()) {
      // The session would outlive the JVM by its timeout, 10 s: the queue must not wait for it.
      String url = "zk://" + server.getConnectString() + "/cli-wait?sessionTimeout=10s";
      Path stderr = dir.resolve("stderr");
      try (LockProvider holder = LockProviders.create(url);
          LockProvider next = LockProviders.create(url)) {
        LeaseGrant held =
            holder.tryAcquire(LockRequest.of("queued", Duration.ofSeconds(60))).orElseThrow();
        try (ChildJvm run =
            ChildJvm.builder(Main.class)
                .jvmOptions("-XX:TieredStopAtLevel=1")
                .args("run", "--url", url, "--key", "queued", "--wait", "60s", "--", "true")
                .output(dir.resolve("stdout"))
                .errorOutput(stderr)
                .start()) {
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> holder.status("queued").waiters() == 1);
          run.terminate();
          assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(143);
        }
        assertThat(holder.status("queued").waiters()).as("the run's waiter node").isZero();
        assertThat(holder.release(held)).isTrue();
        assertThat(next.tryAcquire(LockRequest.of("queued", Duration.ofSeconds(5))))
            .as("no dead waiter ahead in the queue")
            .isPresent();
      }
      assertThat(Files.readAllLines(stderr))
          .containsExactly(
              "locksmith: stopped by a signal while waiting for the lock; nothing ran");
    }
  }
}
