package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.ChildJvmBuilder;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.curator.test.TestingServer;

/**
 * The setup the stopped-holder tests share: a ZooKeeper server, and a holder JVM that takes a lock
 * on it with a 2 s session and a 60 s ttl, so that a stop of a few seconds expires its session long
 * before its lease's end.
 *
 * @param server the server, its data in the test's directory
 * @param url the provider URL of the holder and of the test's own taker
 * @param holder the holder JVM
 */
record StoppedHolderRun(TestingServer server, String url, ChildJvm holder)
    implements AutoCloseable {
  private static final String SESSION = "2s";
  private static final String TTL = "60s";

  /**
   * Starts the server in {@code dir} and then {@code holder}, its output in {@code dir}'s {@code
   * holder.log}, with the arguments {@code URL LOCK_ID TTL} and {@code more}.
   */
  static StoppedHolderRun start(Path dir, String lockId, ChildJvmBuilder holder, String... more)
      throws IOException {
    TestingServer server = TestZooKeeper.start(Files.createDirectories(dir.resolve("zk")));
    try {
      String url =
          ZkTestServers.url(server.getConnectString(), lockId, "sessionTimeout=" + SESSION);
      ChildJvm started =
          holder.args(url, lockId, TTL).args(more).output(dir.resolve("holder.log")).start();
      return new StoppedHolderRun(server, url, started);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** Waits until the holder has written {@code marker}, and checks that it still runs. */
  void awaitMarker(Path marker) {
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(marker) || !holder.isAlive());
    assertThat(holder.isAlive()).as("holder alive; log %s", holder.log()).isTrue();
  }

  /** What the holder wrote to {@code result}: {@code key=value} lines. */
  static Properties result(Path result) throws IOException {
    Properties seen = new Properties();
    try (var reader = Files.newBufferedReader(result)) {
      seen.load(reader);
    }
    return seen;
  }

  /** Stops the holder if it still runs, then the server. */
  @Override
  public void close() throws IOException {
    try (server) {
      holder.close();
    }
  }
}
