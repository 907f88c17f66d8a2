package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Against a server too old to know ACQUIRE-ALL (it answers {@code ERR UNKNOWN_COMMAND}), {@code
 * tryAcquireAll} takes the locks one by one instead, and ACQUIRE-ALL is not tried again.
 */
class AcquireAllFallbackTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aServerWithoutAcquireAllGetsOneAcquirePerLock() throws Exception {
    try (OldServer server = new OldServer()) {
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + server.port())) {
        List<LeaseGrant> first =
            provider
                .tryAcquireAll(List.of(LockRequest.of("a", TTL), LockRequest.of("b", TTL)))
                .orElseThrow();
        List<LeaseGrant> second =
            provider
                .tryAcquireAll(List.of(LockRequest.of("c", TTL), LockRequest.of("d", TTL)))
                .orElseThrow();

        assertThat(first).extracting(LeaseGrant::lockId).containsExactly("a", "b");
        assertThat(second).extracting(LeaseGrant::lockId).containsExactly("c", "d");
        assertThat(second.get(1).fencingToken()).isGreaterThan(first.get(0).fencingToken());
        assertThat(server.commands())
            .as("ACQUIRE-ALL tried once, refused, then one ACQUIRE per lock from then on")
            .containsExactly("ACQUIRE-ALL", "ACQUIRE", "ACQUIRE", "ACQUIRE", "ACQUIRE");
      }
    }
  }

  /**
   * A lock server of an earlier version, for one connection: grants every ACQUIRE and answers
   * anything else (ACQUIRE-ALL) with {@code ERR UNKNOWN_COMMAND}.
   */
  private static final class OldServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<String> commands = new CopyOnWriteArrayList<>();
    private final AtomicLong fencing = new AtomicLong();
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
            case "ACQUIRE" ->
                reply = id + " OK " + words[5] + " " + fencing.incrementAndGet() + " " + words[3];
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
