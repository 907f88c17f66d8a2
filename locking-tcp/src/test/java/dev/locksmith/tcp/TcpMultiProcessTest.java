package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four JVMs contend for one lock, or make transfers over two keys at once, through the server: no
 * overlap, no lost update, no deadlock.
 */
class TcpMultiProcessTest {
  @TempDir Path dir;

  @Test
  void childJvmsExcludeEachOther() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.dataDir(dir.resolve("data")))) {
      int port = server.port();
      MultiProcessHarness.Result result =
          MultiProcessHarness.run("tcp://127.0.0.1:" + port, 4, 25, dir.resolve("work"));
      assertThat(result.violations()).isEmpty();
      assertThat(result.counter()).isEqualTo(100);
    }
  }

  @Test
  void transfersOverTwoKeysInFourJvmsNeverDeadlockOrOverlap() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.dataDir(dir.resolve("data")))) {
      int port = server.port();
      TransferHarness.Result result =
          TransferHarness.run("tcp://127.0.0.1:" + port, dir.resolve("transfers"));
      System.out.println("tcp: " + result.figures());
      assertThat(result.violations()).isEmpty();
      assertThat(result.transfers()).isEqualTo(120);
    }
  }
}
