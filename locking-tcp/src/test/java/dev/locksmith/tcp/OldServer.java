package dev.locksmith.tcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A lock server of an earlier version, for one connection: answers PING, answers each command it
 * {@code knows} with what its function makes of the request's words (after the request id), and
 * anything else with {@code ERR UNKNOWN_COMMAND}. It records every command but PING, in order.
 */
final class OldServer implements AutoCloseable {
  private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  private final List<String> commands = new CopyOnWriteArrayList<>();
  private final Map<String, Function<String[], String>> knows;
  private final Thread thread = new Thread(this::serve, "old-lock-server");
  private volatile Socket connection;

  OldServer(Map<String, Function<String[], String>> knows) throws IOException {
    this.knows = Map.copyOf(knows);
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  /** The commands received, PING left out. */
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
        out.write((answer(line.split(" ")) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // closed by the test
    }
  }

  private String answer(String[] words) {
    String id = words[0];
    String command = words[1];
    if (command.equals("PING")) {
      return id + " PONG";
    }
    commands.add(command);
    Function<String[], String> known = knows.get(command);
    return id + " " + (known == null ? "ERR UNKNOWN_COMMAND " + command : known.apply(words));
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
