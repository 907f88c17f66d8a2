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
