package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose direct memory runs out closes each connection it cannot give a buffer to, for what
 * it read or for the replies to it, and answers every line of the others: a client gets the replies
 * to its lines in order, all of them or some and then the end of its connection, never a gap and
 * never silence. The server says so in one WARN line now and then, without a stack trace.
 *
 * <p>The server runs in a child JVM with 2 MiB of direct memory, with Netty counting it (the
 * options the README gives), so that each failed allocation fails at once; 30 clients each write
 * 20,000 {@code STATUS} lines, whose replies are 18 times longer, reading none until memory has run
 * out. With so little, the core thread's writes of replies fail too (before, each of those failures
 * escaped the core's work with a stack trace and left the connection open and unanswered).
 */
class DirectMemoryExhaustionTest {
  private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
  private static final int CLIENTS = 30;
  private static final int LINES = 20_000;

  @TempDir Path dir;

  @Test
  void connectionsWithoutMemoryAreClosedAndTheOthersAnsweredWithoutGaps() throws Exception {
    byte[] lines = PipelineFloodTest.statusLines(LINES);
    Path log = dir.resolve("server.log");
    ExecutorService writers = Executors.newFixedThreadPool(CLIENTS);
    List<Socket> clients = new ArrayList<>();
    try (ChildJvm child =
        ChildJvm.builder(ChildServerMain.class)
            .jvmOptions(
                "-XX:MaxDirectMemorySize=2m",
                "-Dio.netty.tryReflectionSetAccessible=true",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
            .output(log)
            .start()) {
      int port = awaitPort(child, log);
      long started = System.nanoTime();
      List<Future<?>> writes = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        clients.add(socket);
        writes.add(
            writers.submit(
                () -> {
                  try {
                    socket.getOutputStream().write(lines);
                  } catch (IOException closedByTheServer) {
                    // expected for the connections it could not give memory to
                  }
                }));
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(log).contains("memory"));

      int whole = 0;
      int cut = 0;
      for (int c = 0; c < CLIENTS; c++) {
        int answered = readReplies(clients.get(c), c);
        if (answered == LINES) {
          whole++;
        } else {
          cut++;
        }
      }
      for (Future<?> write : writes) {
        write.get(30, TimeUnit.SECONDS);
      }
      assertThat(cut).as("connections closed for lack of memory").isPositive();
      assertThat(child.process().isAlive()).as("server up").isTrue();

      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      String text = Files.readString(log);
      assertThat(text.lines().filter(l -> l.contains(" WARN ")))
          .as("WARN lines (%d connections answered in full, %d cut) in:%n%s", whole, cut, text)
          .hasSizeBetween(1, (int) (1 + seconds / 10))
          .allMatch(l -> l.contains("closed for lack of memory"));
      assertThat(text).as("stack traces").doesNotContain("\tat ");
    } finally {
      closeAll(clients);
      writers.shutdownNow();
    }
  }

  /**
   * Reads client {@code c}'s replies until it has one for each line or its connection ends; fails
   * on a reply out of order or on silence.
   *
   * @return how many replies it read
   */
  private static int readReplies(Socket socket, int c) throws IOException {
    BufferedReader in =
        new BufferedReader(
            new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
    int read = 0;
    try {
      String reply;
      while (read < LINES && (reply = in.readLine()) != null) {
        assertThat(reply).as("client %d, reply %d", c, read).startsWith(read + " FREE ");
        read++;
      }
    } catch (SocketTimeoutException silence) {
      throw new AssertionError(
          "client " + c + " heard nothing for 20 s after " + read + " replies", silence);
    } catch (IOException reset) {
      // the server closed the connection: the end of its replies
    }
    return read;
  }

  private static int awaitPort(ChildJvm child, Path log) {
    int[] port = {0};
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> (port[0] = listeningPort(log)) > 0 || !child.process().isAlive());
    assertThat(port[0]).as("server log %s", log).isPositive();
    return port[0];
  }

  private static int listeningPort(Path log) throws IOException {
    Matcher m = LISTENING.matcher(Files.readString(log));
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
