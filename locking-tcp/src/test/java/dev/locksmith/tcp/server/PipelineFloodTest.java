package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A client that pipelines requests faster than the core thread answers them, and does not read its
 * replies, cannot grow the server's queues: reads pause while {@link ServerHandler#MAX_IN_FLIGHT}
 * of its requests are in flight, and the lines already read wait unsplit.
 */
class PipelineFloodTest {
  private static final int LINES = 50_000;

  @Test
  void aPipeliningClientStaysBoundedAndOthersAreServed() throws Exception {
    byte[] bytes = statusLines(LINES);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      try (LineClient flood = new LineClient(port);
          LineClient other = new LineClient(port)) {
        Future<?> writing =
            writer.submit(
                () -> {
                  flood.sendBytes(bytes);
                  return null;
                });
        await().until(() -> server.peakInFlight() > 0);
        assertThat(other.call("1 PING")).isEqualTo("1 PONG");
        assertThat(other.call("2 ACQUIRE flood 30000 0 t")).startsWith("2 OK");
        assertThat(other.call("3 RELEASE flood t")).isEqualTo("3 OK");

        for (int i = 0; i < LINES; i++) {
          String reply = flood.read();
          if (!(i + " FREE 0").equals(reply) && !String.valueOf(reply).startsWith(i + " HELD ")) {
            assertThat(reply).as("reply %d of %d", i, LINES).isEqualTo(i + " FREE 0");
          }
        }
        writing.get(30, TimeUnit.SECONDS);
        assertThat(flood.call("z PING")).isEqualTo("z PONG");
        assertThat(server.peakInFlight())
            .as("core tasks in flight for one connection")
            .isBetween(1, ServerHandler.MAX_IN_FLIGHT);
        // The rest of a read stays unsplit in the decoder's buffer while there is no room.
        assertThat(server.peakBacklog())
            .as("lines split from one connection's input and waiting for room")
            .isBetween(1, 2);
      }
    } finally {
      writer.shutdownNow();
    }
  }

  /**
   * A client whose replies cannot be sent gets no more of what it already sent answered: the
   * replies waiting for its socket stay near the connection's high-water mark (64 KiB) instead of
   * growing by the answers to every line left in its last read (each {@code STATUS} answer here is
   * 18 times its request). Once it reads, every request is answered, in order.
   */
  @Test
  void repliesThatCannotBeSentStopTheSplitOfWhatWasRead() throws Exception {
    int flooders = 4;
    int lines = 36_000;
    byte[] bytes = statusLines(lines);
    ExecutorService writers = Executors.newFixedThreadPool(flooders);
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      try (LineClient holder = new LineClient(port)) {
        assertThat(holder.call("h ACQUIRE flood 60000 0 holder " + "d".repeat(256)))
            .startsWith("h OK");
        List<LineClient> clients = new ArrayList<>();
        List<Future<?>> writing = new ArrayList<>();
        try {
          for (int c = 0; c < flooders; c++) {
            LineClient flood = new LineClient(port);
            clients.add(flood);
            writing.add(
                writers.submit(
                    () -> {
                      flood.sendBytes(bytes);
                      return null;
                    }));
          }
          // Until the server has read nothing for half a second but the STATS asking it.
          AtomicLong lastCount = new AtomicLong(-2);
          await()
              .pollInterval(Duration.ofMillis(500))
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> {
                    long now = requests(holder);
                    return lastCount.getAndSet(now) + 1 == now;
                  });
          assertThat(server.peakOutbound())
              .as("bytes of replies waiting for one connection's socket")
              .isPositive()
              .isLessThan(128 * 1024);

          for (LineClient flood : clients) {
            for (int i = 0; i < lines; i++) {
              assertThat(flood.read()).as("reply %d", i).startsWith(i + " HELD ");
            }
          }
          for (Future<?> written : writing) {
            written.get(30, TimeUnit.SECONDS);
          }
        } finally {
          for (LineClient flood : clients) {
            flood.close();
          }
        }
      }
    } finally {
      writers.shutdownNow();
    }
  }

  /** The server's count of requests read, from {@code STATS}. */
  private static long requests(LineClient client) throws Exception {
    String stats = client.call("s STATS");
    Matcher requests = Pattern.compile(" requests=(\\d+)").matcher(String.valueOf(stats));
    assertThat(requests.find()).as("STATS reply %s", stats).isTrue();
    return Long.parseLong(requests.group(1));
  }

  /**
   * Pipelined requests {@code 0 STATUS flood} to {@code count - 1 STATUS flood}: short lines whose
   * answers ({@code i FREE 0}, or a longer HELD line) are what a flood makes the server send.
   */
  static byte[] statusLines(int count) {
    StringBuilder batch = new StringBuilder(count * 16);
    for (int i = 0; i < count; i++) {
      batch.append(i).append(" STATUS flood\n");
    }
    return batch.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
