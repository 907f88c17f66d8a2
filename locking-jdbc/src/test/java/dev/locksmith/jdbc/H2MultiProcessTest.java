package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs contend for one lock in an H2 database that an H2 TCP server of the test's own
 * serves on 127.0.0.1, the way several application instances share one H2 server.
 */
class H2MultiProcessTest {

  @Test
  void separateJvmsOnH2NeverOverlap(@TempDir Path dir) throws Exception {
    onH2Server(
        dir,
        "processes",
        "h2_processes",
        url -> {
          MultiProcessHarness.Result result =
              MultiProcessHarness.run(url, 3, 20, dir.resolve("run"));
          assertThat(result.violations()).isEmpty();
          assertThat(result.counter()).isEqualTo(60);
        });
  }

  @Test
  void transfersOverTwoKeysInFourJvmsOnH2NeverDeadlockOrOverlap(@TempDir Path dir)
      throws Exception {
    onH2Server(
        dir,
        "transfers",
        "h2_transfers",
        url -> {
          TransferHarness.Result result = TransferHarness.run(url, dir.resolve("run"));
          System.out.println("h2: " + result.figures());
          assertThat(result.violations()).isEmpty();
          assertThat(result.transfers()).isEqualTo(120);
        });
  }

  /** What runs against the provider URL of a database. */
  private interface OnUrl {
    void run(String url) throws Exception;
  }

  /**
   * Runs {@code check} with the provider URL of {@code database} (its lock table named from {@code
   * table}) on an H2 TCP server of its own over {@code dir}, then stops the server.
   */
  private static void onH2Server(Path dir, String database, String table, OnUrl check)
      throws Exception {
    // It listens on loopback only: the build sets h2.bindAddress for every test JVM.
    Server server =
        Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString()).start();
    try {
      check.run(
          "jdbc:h2:tcp://127.0.0.1:"
              + server.getPort()
              + "/"
              + database
              + "?table="
              + TestDatabases.table(table));
    } finally {
      server.stop();
    }
  }
}
