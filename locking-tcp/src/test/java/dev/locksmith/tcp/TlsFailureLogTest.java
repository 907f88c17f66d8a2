package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tcp.server.LockServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that open a TLS handshake and garble it cannot flood the server's log: the failure is
 * logged as the client's doing, in one line, at most once every 10 s, not as a WARN with a stack
 * trace per connection.
 */
class TlsFailureLogTest {
  private static final int CLIENTS = 40;

  /** A TLS record header (handshake, TLS 1.0, 5 bytes) and 5 bytes that are no handshake. */
  private static final byte[] GARBLED_HANDSHAKE = {
    0x16, 0x03, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o'
  };

  @TempDir Path dir;

  @Test
  void garbledHandshakesAreLoggedAsOneLineNowAndThen() throws Exception {
    TestCerts certs = TestCerts.create(dir);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    try (LockServer server = LockServer.builder().port(0).tls(certs.cert(), certs.key()).build()) {
      int port = server.start();
      System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
      try {
        for (int i = 0; i < CLIENTS; i++) {
          try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(GARBLED_HANDSHAKE);
            out.flush();
            InputStream in = socket.getInputStream();
            // The server answers with a TLS alert, or none, and closes.
            while (in.read() >= 0) {
              // until closed
            }
          } catch (SocketException reset) {
            // a reset is a close too
          }
        }
      } finally {
        System.setErr(stderr);
      }
    }
    String text = log.toString(StandardCharsets.UTF_8);
    assertThat(text.lines().filter(l -> l.contains("WARN")))
        .as("WARN lines in:%n%s", text)
        .hasSize(1)
        .allMatch(l -> l.contains("TLS with /127.0.0.1:") && l.contains("(1 TLS failures"));
    assertThat(text).as("stack traces").doesNotContain("\tat ");
  }
}
