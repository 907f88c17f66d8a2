package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith} as its own JVM, through {@code Main.main}: what the real stderr holds (no
 * library logging around the one line), and SIGTERM to {@code run}.
 */
class RunInChildJvmTest {
  @TempDir Path dir;

  private Process locksmith(Path stderr, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1"); // starts faster; these JVMs run for a second or two
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(stderr.toFile())
        .start();
  }

  private static int exitOf(Process process) throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("locksmith did not exit within 60 s");
    }
    return process.exitValue();
  }

  @Test
  void sigtermToRunStopsTheWholeGroupAndReleasesTheLock() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      String url = "tcp://127.0.0.1:" + server.start();
      Path pidFile = dir.resolve("pid");
      Path stderr = dir.resolve("stderr");
      // The shell and everything it starts ignore SIGTERM: only the SIGKILL after --grace ends
      // them.
      Process run =
          locksmith(
              stderr,
              "run",
              "--url",
              url,
              "--key",
              "sigterm",
              "--grace",
              "500ms",
              "--",
              "sh",
              "-c",
              "trap '' TERM; echo $$ > " + pidFile + "; while :; do sleep 0.05; done");
      try (LockProvider other = LockProviders.create(url)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
        long pgid = Long.parseLong(Files.readString(pidFile).strip());
        run.destroy(); // SIGTERM
        assertThat(exitOf(run)).isEqualTo(143);
        assertThat(GroupPs.liveMembers(pgid)).isEmpty();
        assertThat(Files.readAllLines(stderr))
            .containsExactly(
                "locksmith: stopped by a signal; stopping COMMAND and releasing the lock");
        assertThat(other.tryAcquire(LockRequest.of("sigterm", Duration.ofSeconds(1))))
            .as("released, not left to run out")
            .isPresent();
      } finally {
        run.destroyForcibly();
      }
    }
  }

  @Test
  void aProviderErrorIsOneLineOnTheRealStderrWithoutLibraryLogging() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      redis.call("SET", "locksmith:{broken}:lock", "not-a-hash");
      Path stderr = dir.resolve("stderr");
      Process run = locksmith(stderr, "run", "--url", redis.url(), "--key", "broken", "--", "true");
      assertThat(exitOf(run)).isEqualTo(69);
      List<String> lines = Files.readAllLines(stderr);
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0))
          .startsWith("locksmith: the provider failed: ")
          .contains("WRONGTYPE")
          .doesNotContain("redis.call");
    }
  }
}
