package dev.locksmith.samples.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.LoopbackPorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the sample script against a shared directory and against the TCP lock server. */
class ThreeHostsSmokeTest {
  private final Path jar = Path.of(System.getProperty("locksmith.jar"));
  private final Path sample = Path.of(System.getProperty("sample.dir"));

  private String runScript(String url, Path log) throws Exception {
    Process script = startScript(url, log);
    String output = Files.readString(log);
    assertThat(script.exitValue()).as(output).isZero();
    return output;
  }

  /** Runs the script to its end, its output in {@code log}. */
  private Process startScript(String url, Path log) throws Exception {
    Process script =
        new ProcessBuilder(List.of(sample.resolve("three-hosts.sh").toString(), url, "2"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(script.waitFor(3, TimeUnit.MINUTES)).as("script finished").isTrue();
    return script;
  }

  @Test
  void runsThatFailFailTheScript(@TempDir Path dir) throws Exception {
    // Not a lock server on the port: every run fails, which the script reported as a clean check.
    // The port is held for the whole test (a socket that accepts and never answers), so no other
    // server can take it meanwhile.
    Process script;
    try (ServerSocket notALockServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      script =
          startScript(
              "tcp://127.0.0.1:" + notALockServer.getLocalPort() + "?connect-timeout=1s",
              dir.resolve("out"));
    }
    String output = Files.readString(dir.resolve("out"));
    assertThat(script.exitValue()).as(output).isNotZero();
    assertThat(output).contains("a host's locksmith run failed");
  }

  @Test
  void threeHostsShareADirectoryWithoutOverlap(@TempDir Path dir) throws Exception {
    Path locks = Files.createDirectory(dir.resolve("locks"));
    String output = runScript(locks.toUri().toString(), dir.resolve("out"));
    assertThat(output).contains("6 runs, no overlaps, tokens increasing");
  }

  @Test
  void threeHostsShareTheLockServerWithoutOverlap(@TempDir Path dir) throws Exception {
    int port = LoopbackPorts.free();
    try (ChildJvm server =
        ChildJvm.builder("dev.locksmith.cli.Main")
            .classPath(jar.toString())
            .args("server", "--port", Integer.toString(port))
            .output(dir.resolve("server.log"))
            .start()) {
      awaitListening(server.log(), port);
      String output = runScript("tcp://127.0.0.1:" + port, dir.resolve("out"));
      assertThat(output).contains("6 runs, no overlaps, tokens increasing");
    }
  }

  private static void awaitListening(Path log, int port) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(log).contains("listening on 127.0.0.1:" + port));
  }
}
