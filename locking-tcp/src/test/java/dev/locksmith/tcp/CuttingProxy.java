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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback proxy in front of the lock server that passes lines both ways until the client sends a
 * request with the chosen command: it forwards that request to the server, swallows the server's
 * reply to it and resets the client's connection, so the client loses the connection while the
 * request is in flight (the server, seeing its side closed, releases the connection's leases).
 */
final class CuttingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int serverPort;
  private final String command;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  CuttingProxy(int serverPort, String command) throws IOException {
    this.serverPort = serverPort;
    this.command = command;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "cutting-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  private void accept() {
    try {
      while (true) {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        AtomicReference<String> cutId = new AtomicReference<>();
        pump("cutting-proxy-up", client, server, line -> toServer(line, cutId));
        pump("cutting-proxy-down", server, client, line -> toClient(line, cutId, client, server));
      }
    } catch (IOException closed) {
      // The proxy was closed.
    }
  }

  /** Notes the id of the request to cut; forwards every line. */
  private boolean toServer(String line, AtomicReference<String> cutId) {
    String[] fields = line.split(" ", 3);
    if (fields.length > 1 && fields[1].equalsIgnoreCase(command)) {
      cutId.compareAndSet(null, fields[0]);
    }
    return true;
  }

  /** Forwards every line but the reply to the request to cut, which resets the client instead. */
  private boolean toClient(
      String line, AtomicReference<String> cutId, Socket client, Socket server) {
    String id = cutId.get();
    if (id == null || !line.startsWith(id + " ")) {
      return true;
    }
    try {
      client.setSoLinger(true, 0);
      client.close();
      server.close();
    } catch (IOException e) {
      // Closed already.
    }
    return false;
  }

  private interface LineFilter {
    boolean forward(String line);
  }

  private static void pump(String name, Socket from, Socket to, LineFilter filter) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(from.getInputStream(), StandardCharsets.UTF_8))) {
                OutputStream out = to.getOutputStream();
                String line;
                while ((line = in.readLine()) != null) {
                  if (!filter.forward(line)) {
                    return;
                  }
                  out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                  out.flush();
                }
              } catch (IOException e) {
                // One side closed.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Nothing to do.
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(CuttingProxy::closeQuietly);
  }
}
