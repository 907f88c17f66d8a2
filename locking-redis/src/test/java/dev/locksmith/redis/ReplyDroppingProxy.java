package dev.locksmith.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a server that forwards every request and, while told to, swallows the
 * server's replies: the commands run, their replies are lost. It can also swallow just the next
 * reply, so that a client's resend of that command is answered.
 */
final class ReplyDroppingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean cutNextReply = new AtomicBoolean();
  private final AtomicInteger cutReplies = new AtomicInteger();
  private volatile boolean dropReplies;

  private ReplyDroppingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  static ReplyDroppingProxy start(String host, int port) throws IOException {
    ReplyDroppingProxy proxy = new ReplyDroppingProxy(host, port);
    daemon("proxy-accept", proxy::accept);
    return proxy;
  }

  int port() {
    return listener.getLocalPort();
  }

  void dropReplies(boolean drop) {
    this.dropReplies = drop;
  }

  /**
   * Swallows the next read of reply bytes on any connection and closes that connection, as a
   * network cut after the server ran a command would; other and later connections are forwarded.
   * With one command in flight that read is its whole reply.
   */
  void cutNextReply() {
    cutNextReply.set(true);
  }

  /** How many replies {@link #cutNextReply()} swallowed. */
  int cutReplies() {
    return cutReplies.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket upstream = new Socket(host, port);
        sockets.add(client);
        sockets.add(upstream);
        daemon("proxy-up", () -> pump(client, upstream, false));
        daemon("proxy-down", () -> pump(upstream, client, true));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean replies) {
    byte[] buffer = new byte[8192];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (replies && cutNextReply.getAndSet(false)) {
          cutReplies.incrementAndGet();
          return; // closes both sockets
        }
        if (!(replies && dropReplies)) {
          out.write(buffer, 0, n);
          out.flush();
        }
      }
    } catch (IOException e) {
      // closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(ReplyDroppingProxy::closeQuietly);
  }
}
