package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.MultiProcessHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Four JVMs contend for one lock through the server: no overlap, no lost update. */
class TcpMultiProcessTest {
  @TempDir Path dir;

  @Test
  void childJvmsExcludeEachOther() throws Exception {
    try (LockServer server = LockServer.builder().port(0).dataDir(dir.resolve("data")).build()) {
      int port = server.start();
      MultiProcessHarness.Result result =
          MultiProcessHarness.run("tcp://127.0.0.1:" + port, 4, 25, dir.resolve("work"));
      assertThat(result.violations()).isEmpty();
      assertThat(result.counter()).isEqualTo(100);
    }
  }
}
