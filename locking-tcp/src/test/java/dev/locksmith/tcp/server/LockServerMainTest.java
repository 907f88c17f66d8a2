package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockServerMainTest {
  @TempDir Path dir;

  @Test
  void parsesOptionsIntoAWorkingServer() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "pw\n");
    try (LockServer server =
        LockServerMain.parse(
            new String[] {
              "--port",
              "0",
              "--bind=127.0.0.1",
              "--data-dir",
              dir.resolve("data").toString(),
              "--secret-file",
              secret.toString(),
              "--idle-timeout",
              "30s",
              "--max-connections",
              "10"
            })) {
      int port = server.start();
      try (LineClient c = new LineClient(port)) {
        assertThat(c.call("1 PING")).startsWith("1 ERR AUTH");
        assertThat(c.call("2 AUTH pw")).isEqualTo("2 OK");
        assertThat(c.call("3 ACQUIRE x 1000 0 t")).matches("3 OK t \\d{16,} 1000");
      }
      assertThat(dir.resolve("data").resolve("fencing.hwm")).exists();
    }
  }

  @Test
  void parsesTheLimitsDeadlinesAndTheMetricsPort() throws Exception {
    try (LockServer server =
        LockServerMain.parse(
            new String[] {
              "--port=0",
              "--auth-timeout",
              "2s",
              "--line-timeout=300ms",
              "--max-unauthenticated",
              "5",
              "--max-unauthenticated-per-address",
              "2",
              "--max-connections-per-address",
              "50",
              "--max-locks-per-connection",
              "7",
              "--max-waiters-per-lock",
              "3",
              "--max-detached-leases",
              "4",
              "--metrics-port",
              "0",
              "--metrics-bind",
              "127.0.0.1"
            })) {
      int port = server.start();
      assertThat(server.metricsPort()).isPositive();
      try (LineClient c = new LineClient(port)) {
        c.sendBytes("1 PI".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(c.readUntilClosed()).isEqualTo("* BYE line-timeout");
      }
    }
    assertThatThrownBy(() -> LockServerMain.parse(new String[] {"--line-timeout", "0s"}))
        .hasMessageContaining("lineTimeout must be positive");
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> LockServerMain.parse(new String[] {"--port", "seven"}))
        .hasMessage("option '--port' needs a whole number, got 'seven'");
    assertThatThrownBy(() -> LockServerMain.parse(new String[] {"--colour", "red"}))
        .hasMessage("unknown option '--colour'");
    assertThatThrownBy(() -> LockServerMain.parse(new String[] {"--tls-cert", "c.pem"}))
        .hasMessage("--tls-cert and --tls-key must be given together");
    assertThatThrownBy(() -> LockServerMain.parse(new String[] {"--data-dir"}))
        .hasMessage("option '--data-dir' needs a value");
  }
}
