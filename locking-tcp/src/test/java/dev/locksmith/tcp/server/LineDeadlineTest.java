package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Slowloris: connections that trickle bytes without ever finishing a line are closed in time. */
class LineDeadlineTest {
  private static final int TRICKLERS = 50;

  @Test
  void connectionsTricklingAByteEveryFewHundredMillisAreClosed() throws Exception {
    try (LockServer server =
        RunningServer.start(
            b -> b.idleTimeout(Duration.ofSeconds(3)).lineTimeout(Duration.ofSeconds(1)))) {
      int port = server.port();
      List<LineClient> tricklers = new ArrayList<>();
      ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();
      try {
        for (int i = 0; i < TRICKLERS; i++) {
          tricklers.add(new LineClient(port));
        }
        // A byte every 200 ms: never idle, never a whole line.
        drip.scheduleAtFixedRate(
            () -> {
              for (LineClient c : tricklers) {
                try {
                  c.sendBytes("x".getBytes(StandardCharsets.US_ASCII));
                } catch (Exception closed) {
                  // the server closed it
                }
              }
            },
            0,
            200,
            TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        for (LineClient c : tricklers) {
          assertThat(c.readUntilClosed()).isEqualTo("* BYE line-timeout");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("all closed after about the line timeout")
            .isLessThan(Duration.ofSeconds(3));
        assertThat(server.runtime().metrics().lineTimeouts.sum()).isEqualTo(TRICKLERS);
      } finally {
        drip.shutdownNow();
        for (LineClient c : tricklers) {
          c.close();
        }
      }
    }
  }

  @Test
  void aSlowLineFinishedInTimeAndPipelinedLinesAreServed() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.lineTimeout(Duration.ofMillis(1500)));
        LineClient c = new LineClient(server.port())) {
      for (String part : new String[] {"1 PI", "N"}) {
        c.sendBytes(part.getBytes(StandardCharsets.US_ASCII));
        assertThat(c.silentFor(300)).isTrue();
      }
      c.sendBytes("G\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(c.read()).isEqualTo("1 PONG");
      // Lines that each finish in time keep the connection open however long it lives.
      for (int i = 0; i < 3; i++) {
        c.sendBytes(("2 PI").getBytes(StandardCharsets.US_ASCII));
        assertThat(c.silentFor(500)).isTrue();
        c.sendBytes(("NG\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(c.read()).isEqualTo("2 PONG");
      }
    }
  }
}
