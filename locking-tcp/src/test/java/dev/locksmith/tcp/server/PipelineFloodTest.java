package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
    StringBuilder batch = new StringBuilder(LINES * 16);
    for (int i = 0; i < LINES; i++) {
      batch.append(i).append(" STATUS flood\n");
    }
    byte[] bytes = batch.toString().getBytes(StandardCharsets.US_ASCII);
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
}
