package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sends at least 100,000 random lines and byte strings, some of them near-valid requests, from
 * connections that get closed for garbage and reconnect, while a well-behaved client keeps taking
 * and releasing a lock. Afterwards the server still serves, and of the gone connections holds only
 * the leases they did not end themselves, until their end.
 */
class ProtocolFuzzTest {
  private static final String[] VERBS = {
    "ACQUIRE",
    "ACQUIRE-ALL",
    "RENEW",
    "RELEASE",
    "STATUS",
    "CANCEL",
    "AUTH",
    "PING",
    "QUIT",
    "acquire",
    "acquire-all",
    "FROB"
  };
  private static final String[] PIECES = {
    "1",
    "2",
    "64",
    "65",
    "-",
    "0",
    "999999999999",
    "9999999999999",
    "x",
    "%",
    "%zz",
    "%C3%A9",
    "lock",
    "k%20k",
    "tok",
    " ",
    "\t",
    "é",
    "-1",
    "*",
    "ACQUIRE",
    "\r",
    "a".repeat(70)
  };

  @Test
  void randomInputLeavesTheServerHealthy() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.maxLineLength(512).maxErrors(50))) {
      int port = server.port();
      CompletableFuture<Integer> good = CompletableFuture.supplyAsync(() -> wellBehaved(port));
      Random random = new Random(20_251_129L);
      int sent = 0;
      int connections = 0;
      while (sent < 100_000) {
        connections++;
        sent += fuzzOneConnection(port, random);
      }
      int goodRounds = good.get(60, TimeUnit.SECONDS);
      assertThat(goodRounds).isPositive();
      try (LineClient c = new LineClient(port)) {
        assertThat(c.call("1 PING")).isEqualTo("1 PONG");
        assertThat(c.call("2 ACQUIRE after 1000 0 t")).startsWith("2 OK t");
      }
      // Only leases detached at their connection's close are left (until their end): no waiter,
      // no lease of a closed connection that is not counted as detached, and no lock that is
      // neither held nor waited for.
      try (LineClient c = new LineClient(port)) {
        await()
            .until(
                () -> {
                  String stats = c.call("s STATS");
                  return stats.contains(" waiters=0 ")
                      && stats.contains(" connections=1 ")
                      && stats.contains(" held=" + server.lockCount() + " ")
                      && stats.contains(" detached=" + server.lockCount() + " ");
                });
      }
      assertThat(connections).isGreaterThan(1);
    }
  }

  private static int fuzzOneConnection(int port, Random random) throws IOException {
    int sent = 0;
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      Thread drain =
          new Thread(
              () -> {
                byte[] buffer = new byte[8192];
                try {
                  while (in.read(buffer) >= 0) {
                    // replies are not checked here; the health checks afterwards are
                  }
                } catch (IOException e) {
                  // the server closed the connection for garbage
                }
              });
      drain.setDaemon(true);
      drain.start();
      try {
        for (int i = 0; i < 2_000; i++) {
          out.write(randomLine(random));
          sent++;
        }
        out.flush();
      } catch (IOException e) {
        // closed by the server: that is the expected answer to garbage
      }
      socket.shutdownOutput();
      try {
        drain.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } catch (IOException e) {
      // the connection was reset
    }
    return sent;
  }

  private static byte[] randomLine(Random random) {
    int kind = random.nextInt(4);
    if (kind == 0) {
      byte[] bytes = new byte[random.nextInt(1200)];
      random.nextBytes(bytes);
      return bytes;
    }
    StringBuilder line = new StringBuilder();
    line.append(
        random.nextInt(3) == 0 ? PIECES[random.nextInt(PIECES.length)] : random.nextInt(99));
    line.append(' ').append(VERBS[random.nextInt(VERBS.length)]);
    int words = random.nextInt(8);
    for (int w = 0; w < words; w++) {
      line.append(' ');
      line.append(
          random.nextBoolean() ? PIECES[random.nextInt(PIECES.length)] : random.nextInt(100_000));
    }
    if (kind == 1) {
      line.append((char) random.nextInt(0x80));
    }
    return (line + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static int wellBehaved(int port) {
    int rounds = 0;
    try (LineClient c = new LineClient(port)) {
      for (int i = 0; i < 300; i++) {
        String ok = c.call(i + " ACQUIRE good 5000 5000 g" + i + " well-behaved");
        assertThat(ok).startsWith(i + " OK g" + i);
        assertThat(c.call("r" + i + " RELEASE good g" + i)).isEqualTo("r" + i + " OK");
        rounds++;
      }
    } catch (IOException e) {
      throw new AssertionError("the well-behaved client failed", e);
    }
    return rounds;
  }
}
