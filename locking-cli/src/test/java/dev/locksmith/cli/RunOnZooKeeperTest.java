package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith run --url zk://127.0.0.1:PORT/...} in JVMs of their own against a real ZooKeeper
 * server (curator-test's, on 127.0.0.1): while one run's COMMAND holds the lock, a second run on
 * the same key with --fail exits 75 without starting its COMMAND; after the first ends, it runs
 * with a higher fencing token (the lease node's creation zxid).
 */
class RunOnZooKeeperTest {
  @TempDir Path dir;

  private ChildJvm locksmith(String name, String... args) {
    return ChildJvm.builder(Main.class)
        .jvmOptions("-XX:TieredStopAtLevel=1")
        .args(args)
        .output(dir.resolve(name + ".out"))
        .errorOutput(dir.resolve(name + ".err"))
        .start();
  }

  private static TestingServer server() throws Exception {
    return new TestingServer(
        new InstanceSpec(
            null,
            -1,
            -1,
            -1,
            true,
            -1,
            200,
            -1,
            Map.of("clientPortAddress", "127.0.0.1"),
            "127.0.0.1"),
        true);
  }

  @Test
  void secondRunIsRefusedWhileTheFirstHoldsAndRunsAfterIt() throws Exception {
    Path started = dir.resolve("started");
    Path release = dir.resolve("release");
    Path secondRan = dir.resolve("second-ran");
    try (TestingServer server = server()) {
      String url = "zk://" + server.getConnectString() + "/cli";
      try (ChildJvm first =
          locksmith(
              "first",
              "run",
              "--url",
              url,
              "--key",
              "cli-zk",
              "--",
              "sh",
              "-c",
              "echo $LOCKSMITH_FENCING_TOKEN > "
                  + started
                  + "; while [ ! -f "
                  + release
                  + " ]; do sleep 0.05; done")) {
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(started));

        try (ChildJvm busy =
            locksmith(
                "busy",
                "run",
                "--url",
                url,
                "--key",
                "cli-zk",
                "--fail",
                "--",
                "touch",
                secondRan.toString())) {
          assertThat(busy.awaitExit(Duration.ofSeconds(60))).isEqualTo(ExitCodes.BUSY);
        }
        assertThat(secondRan).doesNotExist();
        assertThat(Files.readString(dir.resolve("busy.err")))
            .contains("lock 'cli-zk' is busy")
            .contains("--wait");

        Files.createFile(release);
        assertThat(first.awaitExit(Duration.ofSeconds(60))).isZero();
      }
      try (ChildJvm second =
          locksmith(
              "second",
              "run",
              "--url",
              url,
              "--key",
              "cli-zk",
              "--fail",
              "--",
              "sh",
              "-c",
              "echo $LOCKSMITH_FENCING_TOKEN > " + secondRan)) {
        assertThat(second.awaitExit(Duration.ofSeconds(60))).isZero();
      }
    }
    long firstToken = Long.parseLong(Files.readString(started).strip());
    long secondToken = Long.parseLong(Files.readString(secondRan).strip());
    assertThat(secondToken).isGreaterThan(firstToken);
  }
}
