package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The builder's settings reach the running server, and settings that cannot work are refused with
 * the setting named. {@code locksmith server} (locking-cli) maps its options onto these.
 */
class LockServerBuilderTest {
  @TempDir Path dir;

  @Test
  void secretFileDataDirAndLimitsMakeAWorkingServer() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "pw\n");
    try (LockServer server =
        LockServer.builder()
            .port(0)
            .bind("127.0.0.1")
            .dataDir(dir.resolve("data"))
            .secretFile(secret)
            .idleTimeout(Duration.ofSeconds(30))
            .maxConnections(10)
            .build()) {
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
  void limitsDeadlinesAndTheMetricsPortTakeEffect() throws Exception {
    try (LockServer server =
        LockServer.builder()
            .port(0)
            .authTimeout(Duration.ofSeconds(2))
            .lineTimeout(Duration.ofMillis(300))
            .maxUnauthenticated(5)
            .maxUnauthenticatedPerAddress(2)
            .maxConnectionsPerAddress(50)
            .maxLocksPerConnection(7)
            .maxWaitersPerLock(3)
            .maxDetachedLeases(4)
            .metricsPort(0)
            .metricsBind("127.0.0.1")
            .build()) {
      int port = server.start();
      assertThat(server.metricsPort()).isPositive();
      try (LineClient c = new LineClient(port)) {
        c.sendBytes("1 PI".getBytes(StandardCharsets.US_ASCII));
        assertThat(c.readUntilClosed()).isEqualTo("* BYE line-timeout");
      }
    }
  }

  @Test
  void settingsThatCannotWorkAreNamed() throws IOException {
    LockServerBuilder builder = LockServer.builder();
    assertThatThrownBy(() -> builder.lineTimeout(Duration.ZERO))
        .hasMessage("lineTimeout must be positive, was PT0S");
    assertThatThrownBy(() -> builder.port(65_536)).hasMessage("port 65536 is outside 0..65535");
    assertThatThrownBy(() -> builder.metricsPort(-2))
        .hasMessage("metricsPort -2 is outside -1..65535");
    assertThatThrownBy(() -> builder.maxConnections(0))
        .hasMessage("maxConnections must be positive, was 0");
    assertThatThrownBy(() -> builder.fencingBlock(0))
        .hasMessage("fencingBlock must be positive, was 0");
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    assertThatThrownBy(() -> builder.secretFile(empty))
        .isInstanceOf(IOException.class)
        .hasMessage("secret file " + empty + " is empty");
  }
}
