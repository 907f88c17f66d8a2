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
    // It listens on loopback only: the build sets h2.bindAddress for every test JVM.
    Server server =
        Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString()).start();
    try {
      String url =
          "jdbc:h2:tcp://127.0.0.1:"
              + server.getPort()
              + "/processes?table="
              + TestDatabases.table("h2_processes");
      MultiProcessHarness.Result result = MultiProcessHarness.run(url, 3, 20, dir.resolve("run"));
      assertThat(result.violations()).isEmpty();
      assertThat(result.counter()).isEqualTo(60);
    } finally {
      server.stop();
    }
  }

  @Test
  void transfersOverTwoKeysInFourJvmsOnH2NeverDeadlockOrOverlap(@TempDir Path dir)
      throws Exception {
    Server server =
        Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString()).start();
    try {
      String url =
          "jdbc:h2:tcp://127.0.0.1:"
              + server.getPort()
              + "/transfers?table="
              + TestDatabases.table("h2_transfers");
      TransferHarness.Result result = TransferHarness.run(url, dir.resolve("run"));
      System.out.println("h2: " + result.figures());
      assertThat(result.violations()).isEmpty();
      assertThat(result.transfers()).isEqualTo(120);
    } finally {
      server.stop();
    }
  }
}
