package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A client that floods requests and never reads a reply fills the socket buffers, so the server's
 * closing line ({@code * BYE idle-timeout}) can never be flushed. The server closes the connection
 * anyway, shortly after. The client did not end the connection and may not know of its close, so
 * its lease stays until its end.
 */
class UnreadRepliesTest {
  private static final int MAX_LINES = 3_000_000;

  @Test
  void aClientThatNeverReadsIsClosedAtItsIdleTimeoutAndItsLeaseStaysUntilItsEnd() throws Exception {
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (LockServer server =
            LockServer.builder().port(0).idleTimeout(Duration.ofSeconds(1)).build();
        Socket flood = new Socket()) {
      int port = server.start();
      flood.setReceiveBufferSize(4096);
      flood.connect(new InetSocketAddress("127.0.0.1", port));
      OutputStream out = flood.getOutputStream();
      out.write("a ACQUIRE held 600000 0 tok\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      AtomicInteger id = new AtomicInteger();
      try (LineClient observer = new LineClient(port)) {
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> observer.call(id.incrementAndGet() + " STATUS held").contains(" HELD "));
        writer.submit(
            () -> {
              byte[] line = " STATUS a-lock-with-a-rather-long-name\n".getBytes();
              // Until the server closes the connection (the write fails) or the bound is reached.
              for (int i = 0; i < MAX_LINES; i++) {
                out.write(Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
                out.write(line);
              }
              return null;
            });
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> observer.call(id.incrementAndGet() + " STATS").contains(" connections=1 "));
        assertThat(observer.call(id.incrementAndGet() + " STATS")).contains(" kept_after_close=1 ");
        assertThat(observer.call(id.incrementAndGet() + " STATUS held")).contains(" HELD ");
      }
    } finally {
      writer.shutdownNow();
    }
  }
}
