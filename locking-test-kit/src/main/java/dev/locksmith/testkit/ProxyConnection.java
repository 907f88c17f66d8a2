package dev.locksmith.testkit;

import java.io.IOException;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection through a {@link FaultProxy}: the client's socket, the proxy's socket to the
 * server, and a {@link ProxyPipe} for each direction.
 */
final class ProxyConnection {
  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  final FaultProxy proxy;
  final String name;
  final Socket client;
  final Socket server = new Socket();
  final ProxyPipe toServer;
  final ProxyPipe toClient;

  /** Guarded by the proxy's lock. */
  boolean closed;

  ProxyConnection(FaultProxy proxy, int id, Socket client) {
    this.proxy = proxy;
    this.name = "c" + id;
    this.client = client;
    this.toServer = new ProxyPipe(this, FaultProxy.Direction.TO_SERVER, client, server);
    this.toClient = new ProxyPipe(this, FaultProxy.Direction.TO_CLIENT, server, client);
  }

  ProxyPipe pipe(FaultProxy.Direction direction) {
    return direction == FaultProxy.Direction.TO_SERVER ? toServer : toClient;
  }

  /** Runs on the to-server reader thread: connects, starts the other three threads, reads. */
  void connectAndRun() {
    try {
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(proxy.target, CONNECT_TIMEOUT_MILLIS);
    } catch (IOException e) {
      if (!isClosed()) {
        LOG.info("{} {}: cannot connect to the target: {}", proxy, name, e.toString());
      }
      close(true, false);
      return;
    }
    LOG.debug("{} {}: connected {}", proxy, name, client.getRemoteSocketAddress());
    if (!proxy.registry.spawn(name + "-to-server-write", toServer::writeLoop)
        || !proxy.registry.spawn(name + "-to-client-write", toClient::writeLoop)
        || !proxy.registry.spawn(name + "-to-client-read", toClient::readLoop)) {
      close(false, false);
      return;
    }
    toServer.readLoop();
  }

  boolean isClosed() {
    proxy.lock.lock();
    try {
      return closed;
    } finally {
      proxy.lock.unlock();
    }
  }

  /** Closes both sockets, with a reset where asked; later calls do nothing. */
  void close(boolean resetClient, boolean resetServer) {
    proxy.lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      proxy.registry.remove(this);
      toServer.changed.signalAll();
      toClient.changed.signalAll();
    } finally {
      proxy.lock.unlock();
    }
    closeSocket(client, resetClient);
    closeSocket(server, resetServer);
    LOG.debug(
        "{} {}: closed (client {}, server {})",
        proxy,
        name,
        resetClient ? "reset" : "closed",
        resetServer ? "reset" : "closed");
  }

  private static void closeSocket(Socket socket, boolean reset) {
    if (reset) {
      try {
        socket.setSoLinger(true, 0);
      } catch (IOException e) {
        LOG.trace("SO_LINGER failed", e);
      }
    }
    FaultProxy.closeQuietly(socket);
  }
}
