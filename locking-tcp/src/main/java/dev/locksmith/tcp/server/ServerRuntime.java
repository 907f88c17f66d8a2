package dev.locksmith.tcp.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running {@link LockServer}: the data directory ({@link DataDirectory}), the Netty event loops,
 * the lock table on the first of them (the "core thread"), the connection limits and the metrics
 * endpoint, started and stopped together. With one event loop (the default) every connection is
 * read, answered and written on one thread, as Redis does, with no hand-off between threads; with
 * more, the other loops hand their connections' requests to the first.
 */
final class ServerRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LockServer.class);

  private final ServerSettings settings;
  private final ServerMetrics metrics = new ServerMetrics();
  private final Admission admission;
  private final AuthThrottle authThrottle =
      new AuthThrottle(Duration.ofMinutes(1), line -> LOG.warn("{}", line));
  private final ConnectionPeaks peaks = new ConnectionPeaks();
  private final ConnectionFailureLog failures = new ConnectionFailureLog();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private @Nullable EventLoop core;
  private @Nullable LockTable table;
  private @Nullable DataDirectory dataDirectory;
  private @Nullable EventLoopGroup bossGroup;
  private @Nullable EventLoopGroup workerGroup;
  private @Nullable Channel serverChannel;
  private @Nullable MetricsEndpoint metricsEndpoint;
  private int port = -1;

  ServerRuntime(ServerSettings settings) {
    this.settings = settings;
    this.admission = new Admission(settings, metrics);
  }

  /**
   * Opens the data directory, binds and starts serving (and the metrics endpoint, if asked for).
   * When the fencing high-water mark a crash left is still ahead of the clock, first waits for the
   * clock to pass it (at most {@link LockServerBuilder#fencingBlock(long)} microseconds, a second
   * by default).
   *
   * @return the bound port (useful with {@code port(0)})
   * @throws IOException when the data directory, the TLS files or a bind fail
   */
  int start() throws IOException {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("LockServer already started");
    }
    try {
      Path dataDir = settings.dataDir();
      DataDirectory data = DataDirectory.open(dataDir, settings.fencingBlock());
      dataDirectory = data;
      SslContext ssl = sslContext();
      bossGroup =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("locksmith-server-accept"), NioIoHandler.newFactory());
      workerGroup =
          new MultiThreadIoEventLoopGroup(
              settings.workerThreads(),
              new DefaultThreadFactory("locksmith-server"),
              NioIoHandler.newFactory());
      // The lock table lives on the first event loop: its connections are answered right there,
      // the others' requests are handed to it.
      EventLoop coreLoop = workerGroup.next();
      core = coreLoop;
      LockTable lockTable =
          new LockTable(
              data.sequence(),
              data.horizon(),
              RestartWait.millis(data.horizon(), settings.maxRestartWait()),
              coreLoop,
              metrics,
              settings.maxWaitersPerLock(),
              settings.maxLocksPerConnection(),
              settings.maxDetachedLeases());
      table = lockTable;
      coreLoop.scheduleWithFixedDelay(authThrottle::sweep, 1, 1, TimeUnit.MINUTES);
      coreLoop.scheduleWithFixedDelay(
          lockTable::lowerHorizon,
          LeaseHorizon.LOWER_EVERY_MILLIS,
          LeaseHorizon.LOWER_EVERY_MILLIS,
          TimeUnit.MILLISECONDS);
      ServerBootstrap bootstrap =
          new ServerBootstrap()
              .group(bossGroup, workerGroup)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(ChannelOption.SO_KEEPALIVE, true)
              .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
              .childOption(
                  ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32_768, 65_536))
              .childHandler(new ServerPipeline(this, settings, ssl));
      Channel bound;
      try {
        bound =
            bootstrap
                .bind(new InetSocketAddress(settings.bind(), settings.port()))
                .sync()
                .channel();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while binding", e);
      } catch (Exception e) {
        throw new IOException(
            "cannot bind lock server to " + settings.bind() + ":" + settings.port() + ": " + e, e);
      }
      serverChannel = bound;
      port = ((InetSocketAddress) bound.localAddress()).getPort();
      if (settings.metricsPort() >= 0) {
        metricsEndpoint =
            MetricsEndpoint.start(settings.metricsBind(), settings.metricsPort(), metrics);
      }
      LOG.info(
          "Lock server listening on {}:{} (tls {}, auth {}, data dir {})",
          settings.bind(),
          port,
          ssl == null ? "off" : "on",
          settings.secret() == null ? "off" : "on",
          dataDir == null ? "none" : dataDir);
      return port;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private @Nullable SslContext sslContext() throws SSLException {
    Path cert = settings.tlsCert();
    Path key = settings.tlsKey();
    if (cert == null || key == null) {
      return null;
    }
    try {
      return SslContextBuilder.forServer(cert.toFile(), key.toFile()).build();
    } catch (IllegalArgumentException e) {
      throw new SSLException(
          "cannot read TLS certificate " + cert + " or key " + key + " (PEM, PKCS#8 key): " + e, e);
    }
  }

  /** The bound port; -1 before {@link #start()}. */
  int port() {
    return port;
  }

  /** The metrics endpoint's bound port; -1 when there is none (or before {@link #start()}). */
  int metricsPort() {
    MetricsEndpoint endpoint = metricsEndpoint;
    return endpoint == null ? -1 : endpoint.port();
  }

  /** Whether the server has been closed. */
  boolean isClosed() {
    return closed.get();
  }

  /**
   * Stops the server: stops accepting, sends {@code * BYE shutting-down} to every client and closes
   * their connections (which ends their leases), then stops the threads. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    MetricsEndpoint endpoint = metricsEndpoint;
    if (endpoint != null) {
      endpoint.close();
    }
    Channel listening = serverChannel;
    if (listening != null) {
      listening.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    if (!channels.isEmpty()) {
      LOG.info("Lock server shutting down; telling {} client(s)", channels.size());
      channels
          .writeAndFlush(
              Unpooled.wrappedBuffer("* BYE shutting-down\n".getBytes(StandardCharsets.US_ASCII)))
          .awaitUninterruptibly(2, TimeUnit.SECONDS);
      channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    DataDirectory data = dataDirectory;
    if (data != null) {
      LockTable lockTable = table;
      data.close(core, () -> lockTable == null ? 0 : lockTable.latestLeftMillis());
    }
    shutdown(bossGroup);
    shutdown(workerGroup);
    terminated.countDown();
    if (port >= 0) {
      LOG.info("Lock server on port {} stopped", port);
    }
  }

  private static void shutdown(@Nullable EventLoopGroup group) {
    if (group != null) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
  }

  /** Blocks until {@link #close()} has finished. */
  void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Counts a new connection in, or refuses it (shutting down, or a connection limit reached).
   * Refusals are logged at most once every 10 s, with a count.
   *
   * @return null when admitted, else the reason to send as {@code * BYE <reason>}
   */
  @Nullable String admit(Session session, boolean authRequired) {
    metrics.accepted.increment();
    String refusal =
        closed.get() ? "shutting-down" : admission.admit(session.address, authRequired);
    if (refusal == null) {
      channels.add(session.channel);
      return null;
    }
    metrics.refusedConnections.increment();
    failures.refused(session, refusal);
    return refusal;
  }

  /** Where connection failures are logged. */
  ConnectionFailureLog failures() {
    return failures;
  }

  /** The peaks of the connections' queues. */
  ConnectionPeaks peaks() {
    return peaks;
  }

  ServerMetrics metrics() {
    return metrics;
  }

  Admission admission() {
    return admission;
  }

  AuthThrottle authThrottle() {
    return authThrottle;
  }

  /** How many locks have a holder or waiters, read on the core thread (for tests and health). */
  int lockCount() throws Exception {
    EventLoop coreLoop = Objects.requireNonNull(core, "not started");
    return coreLoop.submit(() -> table().size()).get(5, TimeUnit.SECONDS);
  }

  LockTable table() {
    return Objects.requireNonNull(table, "not started");
  }

  /**
   * Runs a task on the core thread: at once when called on it (a connection of the first event
   * loop), else after the tasks queued before. False when the server is not running.
   */
  boolean onCore(Runnable task) {
    EventLoop coreLoop = core;
    if (coreLoop == null) {
      return false;
    }
    Runnable guarded =
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.error("Lock server core task failed", e);
          }
        };
    if (coreLoop.inEventLoop()) {
      guarded.run();
      return true;
    }
    try {
      coreLoop.execute(guarded);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return "LockServer[" + settings.bind() + ":" + (port >= 0 ? port : settings.port()) + "]";
  }
}
