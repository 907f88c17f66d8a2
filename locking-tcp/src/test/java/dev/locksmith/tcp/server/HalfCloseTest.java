package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Clients that shut down their sending side after their requests, as {@code printf ... | nc -N} and
 * {@code socat} do, get every answer before the server closes.
 */
class HalfCloseTest {
  private static final int ROUNDS = 50;
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void aRequestThenHalfCloseIsAnsweredEveryTime() throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      try (LineClient c = new LineClient(server.port())) {
        c.send("1 STATUS half-close-" + i);
        c.shutdownOutput();
        assertThat(c.read()).as("round %d", i).isEqualTo("1 FREE 0");
        assertThat(c.read()).as("then the server closes").isNull();
      }
    }
  }

  @Test
  void pingThenHalfCloseIsAnsweredEveryTime() throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      try (LineClient c = new LineClient(server.port())) {
        c.send("1 PING");
        c.shutdownOutput();
        assertThat(c.read()).as("round %d", i).isEqualTo("1 PONG");
        assertThat(c.read()).isNull();
      }
    }
  }

  @Test
  void aLastLineWithoutItsNewlineIsAnsweredAtTheHalfClose() throws Exception {
    // printf '1 PING' | nc -N: the end of the input ends the line.
    try (LineClient c = new LineClient(server.port())) {
      c.sendBytes(
          "1 PING\n2 STATUS no-newline\r".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      c.shutdownOutput();
      assertThat(c.read()).isEqualTo("1 PONG");
      assertThat(c.read()).isEqualTo("2 FREE 0");
      assertThat(c.read()).as("then the server closes").isNull();
    }
  }

  @Test
  void pipelinedRequestsBeforeTheHalfCloseAreAllAnsweredInOrder() throws Exception {
    try (LineClient c = new LineClient(server.port());
        LineClient observer = new LineClient(server.port())) {
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        lines.append(i).append(" ACQUIRE pipelined-").append(i).append(" 60000 0 t").append(i);
        lines.append('\n');
      }
      c.sendBytes(lines.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      c.shutdownOutput();
      for (int i = 0; i < 200; i++) {
        assertThat(c.read()).startsWith(i + " OK t" + i + " ");
      }
      assertThat(c.read()).isNull();
      // Its leases were of running work: they ended with the connection.
      await().until(() -> observer.status("pipelined-199").equals("s FREE 0"));
    }
  }

  @Test
  void thousandsOfLinesPipelinedBeforeTheHalfCloseAreAllAnsweredInOrder() throws Exception {
    int count = 20_000;
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < count; i++) {
      lines.append(i).append(" PING\n");
    }
    byte[] bytes = lines.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (LineClient c = new LineClient(server.port())) {
      // Written while the replies are read: the server stops reading while they are not.
      Future<?> writing =
          writer.submit(
              () -> {
                c.sendBytes(bytes);
                c.shutdownOutput();
                return null;
              });
      for (int i = 0; i < count; i++) {
        assertThat(c.read()).as("reply %d of %d", i, count).isEqualTo(i + " PONG");
      }
      assertThat(c.read()).as("then the server closes").isNull();
      writing.get(30, TimeUnit.SECONDS);
    } finally {
      writer.shutdownNow();
    }
  }

  @Test
  void anAcquireStillWaitingAtTheHalfCloseIsCancelled() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient c = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE half-close-busy 60000 0 h")).startsWith("1 OK h ");
      c.send("1 PING");
      c.send("2 ACQUIRE half-close-busy 60000 60000 w");
      c.send("3 STATUS half-close-busy");
      c.shutdownOutput();
      assertThat(c.read()).isEqualTo("1 PONG");
      assertThat(c.read()).startsWith("3 HELD ");
      assertThat(c.read()).isEqualTo("2 CANCELLED");
      assertThat(c.read()).isNull();
      assertThat(holder.call("2 STATUS half-close-busy")).matches("2 HELD \\d+ \\d+ 0 -");
    }
  }
}
