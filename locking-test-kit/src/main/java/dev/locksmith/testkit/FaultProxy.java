package dev.locksmith.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting TCP proxy on loopback. Tests put it between a lock client and a real server in
 * the same JVM, point the client at {@link #host()}:{@link #port()}, and break the network path
 * while the client holds or waits for a lock: freeze a direction, delay it, lose a reply after the
 * server acted on the request, half-close or reset the connections.
 *
 * <p>It listens on {@code 127.0.0.1} on an ephemeral port and forwards every accepted connection to
 * the target over a new connection of its own. For each direction of each connection one thread
 * reads from the sending side into an in-order queue and another writes from that queue to the
 * receiving side, so a frozen or delayed direction neither drops bytes nor holds up the other
 * direction. An end of stream from one side is passed on as a half-close ({@code shutdownOutput})
 * to the other, in order after the bytes before it; a connection is closed when both directions
 * have ended. A read or write error closes only that connection (with a reset on both sides). Up to
 * 4 MiB per direction and connection are held; beyond that the proxy stops reading from the sender,
 * as a full TCP window would.
 *
 * <p>Faults apply to every current and future connection and take effect on the next chunk: a chunk
 * is what one read from the sender returned, so bytes the sender wrote in one go usually form one
 * chunk. All methods are thread-safe.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start("127.0.0.1", server.port())) {
 *   LockProvider provider = LockProviders.create("tcp://" + proxy.host() + ":" + proxy.port());
 *   ...
 *   proxy.freeze(FaultProxy.Direction.TO_CLIENT); // the client's renewals get no answer
 *   ...
 *   proxy.thaw();
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {

  /** Which way bytes travel through the proxy. */
  public enum Direction {
    /** From the client to the server: requests. */
    TO_SERVER,
    /** From the server to the client: replies and pushed messages. */
    TO_CLIENT
  }

  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final String LISTEN_HOST = "127.0.0.1";

  final InetSocketAddress target;
  private final ServerSocket listener;
  private final int port;
  private final AtomicInteger connectionIds = new AtomicInteger();
  final AtomicLong[] forwarded = {new AtomicLong(), new AtomicLong()};

  /** Guards the registry, the faults, and every connection's and pipe's state. */
  final ReentrantLock lock = new ReentrantLock();

  final ProxyRegistry registry;
  final ProxyFaults faults;

  private FaultProxy(InetSocketAddress target, ServerSocket listener) {
    this.target = target;
    this.listener = listener;
    this.port = listener.getLocalPort();
    this.registry =
        new ProxyRegistry(lock, new ProxyThreads(toString(), "fault-proxy-" + port + "-"));
    this.faults = new ProxyFaults(lock, registry);
  }

  /**
   * Starts a proxy on {@code 127.0.0.1} and an ephemeral port that forwards every connection to
   * {@code targetHost:targetPort}.
   *
   * @param targetHost a loopback address or a name that resolves only to loopback addresses, such
   *     as {@code "127.0.0.1"} or {@code "localhost"}
   * @param targetPort the server's port
   * @return the started proxy
   * @throws IllegalArgumentException if the target is not on loopback or the port is out of range
   * @throws java.net.UnknownHostException if {@code targetHost} does not resolve
   * @throws IOException if the listening socket cannot be opened
   */
  public static FaultProxy start(String targetHost, int targetPort) throws IOException {
    InetSocketAddress target = LoopbackTarget.resolve(targetHost, targetPort);
    ServerSocket listener = new ServerSocket();
    try {
      listener.bind(new InetSocketAddress(InetAddress.getByName(LISTEN_HOST), 0), 50);
    } catch (IOException e) {
      listener.close();
      throw e;
    }
    FaultProxy proxy = new FaultProxy(target, listener);
    proxy.registry.spawn("accept", proxy::acceptLoop);
    LOG.info("{} started", proxy);
    return proxy;
  }

  /**
   * Returns the address the proxy listens on, always {@code "127.0.0.1"}.
   *
   * @return the listening host
   */
  public String host() {
    return LISTEN_HOST;
  }

  /**
   * Returns the ephemeral port the proxy listens on.
   *
   * @return the listening port
   */
  public int port() {
    return port;
  }

  /**
   * Stops forwarding in {@code direction} on every current and future connection, as a network path
   * that silently stops delivering packets. The connections stay open; what the sender writes
   * meanwhile is held (and read, up to 4 MiB per connection) and delivered in order on {@link
   * #thaw(Direction)}, including an end of stream or a reset that comes after it. The other
   * direction keeps flowing.
   *
   * @param direction the direction to freeze
   */
  public void freeze(Direction direction) {
    setFrozen(direction, true);
  }

  /**
   * Resumes forwarding in {@code direction}: what was held is delivered in order, each chunk no
   * earlier than its {@linkplain #delay(Direction, Duration) delay} after it was read. Does nothing
   * if the direction is not frozen.
   *
   * @param direction the direction to thaw
   */
  public void thaw(Direction direction) {
    setFrozen(direction, false);
  }

  /** Thaws both directions; see {@link #thaw(Direction)}. */
  public void thaw() {
    thaw(Direction.TO_SERVER);
    thaw(Direction.TO_CLIENT);
  }

  private void setFrozen(Direction direction, boolean value) {
    if (faults.setFrozen(direction, value)) {
      LOG.info("{}: {} {}", this, value ? "froze" : "thawed", direction);
    }
  }

  /**
   * Delays {@code direction} on every current and future connection: each chunk (and an end of
   * stream or reset) is delivered no earlier than {@code delay} after the proxy read it, and never
   * before what was read before it. The delay in force when a chunk is due counts, so lowering it
   * also releases chunks already waiting. {@link Duration#ZERO} turns the delay off.
   *
   * @param direction the direction to delay
   * @param delay how long each chunk waits; not negative
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public void delay(Direction direction, Duration delay) {
    faults.setDelay(direction, delay);
    LOG.info("{}: {} delayed by {}", this, direction, delay);
  }

  /**
   * Loses the next chunk the server sends, on whichever connection that is: the chunk is discarded
   * and that connection is then reset toward the client ({@code SO_LINGER} 0, so the client sees a
   * connection reset) and closed toward the server. This is how a reply is really lost on TCP:
   * after the server received the request and acted on it. Each call loses one more chunk. Bytes
   * the server sent before the lost chunk are still delivered first, so a frozen or delayed {@link
   * Direction#TO_CLIENT} also holds back the reset.
   */
  public void loseNextReply() {
    faults.loseNextReply();
    LOG.info("{}: the next reply will be lost", this);
  }

  /**
   * Half-closes {@code direction} on every current connection: after the bytes already read in that
   * direction, the receiving side gets an end of stream ({@code shutdownOutput}), as if the sender
   * had shut down its output. The sender is not told; what it sends afterwards in that direction is
   * read and discarded. The other direction keeps flowing, and the connection closes once it ends
   * too. A frozen direction delivers the end of stream on thaw.
   *
   * @param direction {@link Direction#TO_SERVER} to end the stream the server reads, {@link
   *     Direction#TO_CLIENT} to end the stream the client reads
   */
  public void halfClose(Direction direction) {
    long now = System.nanoTime();
    for (ProxyConnection connection : registry.openConnections()) {
      connection.pipe(direction).halfClose(now);
    }
    LOG.info("{}: half-closed {}", this, direction);
  }

  /**
   * Resets every current connection at once, on both sides ({@code SO_LINGER} 0, so each side sees
   * a connection reset), discarding whatever is held. New connections are accepted as usual.
   */
  public void resetAll() {
    List<ProxyConnection> connections = registry.openConnections();
    for (ProxyConnection connection : connections) {
      connection.close(true, true);
    }
    LOG.info("{}: reset {} connection(s)", this, connections.size());
  }

  /**
   * Returns how many client connections are open: accepted and not yet closed by both sides, reset,
   * or closed by the proxy.
   *
   * @return the number of open connections
   */
  public int connections() {
    return registry.size();
  }

  /**
   * Returns how many bytes have been delivered in {@code direction} so far, over all connections.
   * Held, discarded and lost bytes do not count.
   *
   * @param direction the direction
   * @return the number of bytes written to the receiving sides
   */
  public long forwarded(Direction direction) {
    return forwarded[direction.ordinal()].get();
  }

  /**
   * Stops accepting, closes every connection on both sides (discarding what is held) and waits up
   * to five seconds for the proxy's threads to end. Calling it again does nothing.
   */
  @Override
  public void close() {
    List<ProxyConnection> connections = registry.close();
    if (connections == null) {
      return;
    }
    closeQuietly(listener);
    for (ProxyConnection connection : connections) {
      connection.close(false, false);
    }
    registry.joinThreads();
    LOG.info("{} closed", this);
  }

  /** Returns {@code "FaultProxy[127.0.0.1:port -> target]"}. */
  @Override
  public String toString() {
    return "FaultProxy["
        + LISTEN_HOST
        + ":"
        + port
        + " -> "
        + target.getAddress().getHostAddress()
        + ":"
        + target.getPort()
        + "]";
  }

  private void acceptLoop() {
    while (true) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!registry.isClosed()) {
          LOG.warn("{}: accept failed; no longer accepting", this, e);
        }
        return;
      }
      ProxyConnection connection =
          new ProxyConnection(this, connectionIds.incrementAndGet(), client);
      if (!registry.register(connection)
          || !registry.spawn(connection.name + "-to-server-read", connection::connectAndRun)) {
        connection.close(false, false);
      }
    }
  }

  static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.trace("close failed", e);
    }
  }
}
