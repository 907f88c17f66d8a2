package dev.locksmith.testkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL server of a JVM killed with SIGKILL, which runs no shutdown hook, stops soon after
 * it. Before, it kept running (and its port and memory taken) until the machine restarted.
 */
class TestPostgresWatchdogTest {
  @TempDir Path dir;

  @Test
  void theServerOfAKilledJvmStopsSoonAfterIt() throws Exception {
    try (ChildJvm child =
        ChildJvm.builder(PostgresHolderMain.class)
            .jvmOptions("-Xmx64m", "-XX:TieredStopAtLevel=1")
            .pipeStdout()
            .output(dir.resolve("child.log"))
            .start()) {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(child.process().getInputStream(), StandardCharsets.UTF_8));
      String first = lines.readLine();
      assertThat(first).as("the child's first line; log %s", child.log()).startsWith("port ");
      int port = Integer.parseInt(first.substring("port ".length()));
      assertThat(accepts(port)).as("the server runs").isTrue();

      child.kill();

      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !accepts(port));
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
