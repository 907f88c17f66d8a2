package dev.locksmith.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM killed outright (SIGKILL, or a JMH fork halted after a failure) runs no shutdown hook, yet
 * the {@code redis-server} it started does not outlive it.
 */
class RedisInAKilledJvmTest {
  private static final String PORT = "port=";

  @Test
  void aServerStartedByAJvmThatIsKilledStopsToo(@TempDir Path dir) throws Exception {
    try (ChildJvm child =
        ChildJvm.builder(StartsAServerAndWaits.class)
            .jvmOptions("-Xmx64m", "-XX:TieredStopAtLevel=1")
            .output(dir.resolve("child.log"))
            .start()) {
      int port =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> portIn(child.log()), Optional::isPresent)
              .orElseThrow();
      assertThat(RespClient.call("127.0.0.1", port, Duration.ofSeconds(5), "PING"))
          .isEqualTo("PONG");

      child.kill();
      assertThat(child.awaitExit(Duration.ofSeconds(10))).as("killed").isNotZero();

      try {
        await()
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> !answers(port));
      } finally {
        shutDownIfRunning(port);
      }
    }
  }

  private static Optional<Integer> portIn(Path log) throws IOException {
    if (!Files.exists(log)) {
      return Optional.empty();
    }
    return Files.readAllLines(log).stream()
        .filter(line -> line.startsWith(PORT))
        .map(line -> Integer.parseInt(line.substring(PORT.length())))
        .findFirst();
  }

  /** Leaves no server behind when the test fails; SHUTDOWN closes the connection, no reply. */
  private static void shutDownIfRunning(int port) {
    if (answers(port)) {
      try {
        RespClient.call("127.0.0.1", port, Duration.ofSeconds(5), "SHUTDOWN", "NOSAVE");
      } catch (IOException expected) {
        // the server closed the connection as it stopped
      }
    }
  }

  private static boolean answers(int port) {
    try {
      return "PONG".equals(RespClient.call("127.0.0.1", port, Duration.ofSeconds(1), "PING"));
    } catch (IOException e) {
      return false;
    }
  }

  /** The child: starts a dedicated server, says its port, and waits to be killed. */
  static final class StartsAServerAndWaits {
    private StartsAServerAndWaits() {}

    public static void main(String[] args) throws InterruptedException {
      RedisServerProcess server = TestRedis.startDedicated();
      System.out.println(PORT + server.port());
      System.out.flush();
      new CountDownLatch(1).await();
    }
  }
}
