package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Against a server too old to know HOLD (it answers {@code ERR UNKNOWN_COMMAND}), a lease shortened
 * to its minimum hold is renewed with RENEW instead, stays tied to the connection, and HOLD is not
 * tried again.
 */
class HoldFallbackTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aServerWithoutHoldGetsRenewAndTheLeaseStaysTiedToTheConnection() throws Exception {
    try (OldServer server = new OldServer()) {
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + server.port())) {
        List<LeaseGrant> lost = new CopyOnWriteArrayList<>();
        provider.onLeaseLost(lost::add);
        LeaseGrant lease = provider.tryAcquire(LockRequest.of("old", TTL)).orElseThrow();

        LeaseGrant shortened = provider.renew(lease, Duration.ofSeconds(2)).orElseThrow();
        assertThat(shortened.ttl()).isEqualTo(Duration.ofSeconds(2));
        assertThat(provider.renew(shortened, Duration.ofSeconds(3))).isPresent();
        assertThat(server.commands())
            .as("HOLD tried once, refused, then RENEW; RENEW only from then on")
            .containsExactly("ACQUIRE", "HOLD", "RENEW", "RENEW");

        server.dropConnection();
        await()
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () ->
                    assertThat(lost)
                        .as("not detached: lost with its connection")
                        .extracting(LeaseGrant::ownerToken)
                        .containsExactly(lease.ownerToken()));
      }
    }
  }

  /**
   * A lock server of an earlier version, for one connection: grants every ACQUIRE, renews every
   * RENEW, and answers anything else (HOLD) with {@code ERR UNKNOWN_COMMAND}.
   */
  private static final class OldServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<String> commands = new CopyOnWriteArrayList<>();
    private final Thread thread = new Thread(this::serve, "old-lock-server");
    private volatile Socket connection;

    OldServer() throws IOException {
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    List<String> commands() {
      return commands;
    }

    void dropConnection() throws IOException {
      connection.close();
    }

    private void serve() {
      try (Socket accepted = socket.accept()) {
        connection = accepted;
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(accepted.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = accepted.getOutputStream();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          String[] words = line.split(" ");
          String id = words[0];
          String command = words[1];
          String reply;
          switch (command) {
            case "ACQUIRE" -> reply = id + " OK " + words[5] + " 1 " + words[3];
            case "RENEW" -> reply = id + " OK " + words[3] + " 1 " + words[4];
            case "PING" -> reply = id + " PONG";
            default -> reply = id + " ERR UNKNOWN_COMMAND " + command;
          }
          if (!command.equals("PING")) {
            commands.add(command);
          }
          out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        // closed by the test
      }
    }

    @Override
    public void close() throws Exception {
      socket.close();
      Socket c = connection;
      if (c != null) {
        c.close();
      }
      thread.join(5_000);
    }
  }
}
