package dev.locksmith.tcp.server;

import dev.locksmith.tcp.protocol.Protocol;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Locksmith lock server: leases in memory with server-side TTLs, FIFO waiters whose grants are
 * pushed, leases released at once when their connection closes, and fencing tokens that keep
 * increasing across restarts. Usable in-process:
 *
 * <pre>{@code
 * LockServer server = LockServer.builder().port(0).dataDir(dir).build();
 * int port = server.start();
 * ...
 * server.close(); // tells clients "* BYE shutting-down"
 * }</pre>
 *
 * <p>The protocol is specified in {@code locking-tcp/PROTOCOL.md}.
 */
public final class LockServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LockServer.class);
  private static final String LOCK_FILE = "server.lock";

  private final ServerSettings settings;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger peakInFlight = new AtomicInteger();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ScheduledThreadPoolExecutor core;
  private @Nullable LockTable table;
  private @Nullable FencingSequence fencing;
  private @Nullable EventLoopGroup bossGroup;
  private @Nullable EventLoopGroup workerGroup;
  private @Nullable Channel serverChannel;
  private @Nullable FileChannel lockFileChannel;
  private @Nullable FileLock dataDirLock;
  private int port = -1;

  private LockServer(ServerSettings settings) {
    this.settings = settings;
    this.core =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "locksmith-server-core");
              thread.setDaemon(true);
              return thread;
            });
    core.setRemoveOnCancelPolicy(true);
    core.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** A builder with the defaults: port 7420 on 127.0.0.1, no data directory, no auth, no TLS. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens the data directory, binds and starts serving. When the fencing high-water mark a crash
   * left is still ahead of the clock, first waits for the clock to pass it (at most {@link
   * Builder#fencingBlock(long)} microseconds, a second by default).
   *
   * @return the bound port (useful with {@code port(0)})
   * @throws IOException when the data directory, the TLS files or the bind fail
   */
  public int start() throws IOException {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("LockServer already started");
    }
    try {
      Path dataDir = settings.dataDir();
      if (dataDir != null) {
        Files.createDirectories(dataDir);
        lockDataDir(dataDir);
      }
      FencingSequence sequence = FencingSequence.open(dataDir, settings.fencingBlock());
      fencing = sequence;
      table =
          new LockTable(
              sequence, core, settings.maxWaitersPerLock(), settings.maxLocksPerConnection());
      SslContext ssl = sslContext();
      bossGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
      workerGroup =
          new MultiThreadIoEventLoopGroup(settings.workerThreads(), NioIoHandler.newFactory());
      RequestParser parser = new RequestParser(settings.maxKeyBytes());
      ServerBootstrap bootstrap =
          new ServerBootstrap()
              .group(bossGroup, workerGroup)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(ChannelOption.SO_KEEPALIVE, true)
              .childOption(
                  ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32_768, 65_536))
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ChannelPipeline p = ch.pipeline();
                      if (ssl != null) {
                        p.addLast("tls", ssl.newHandler(ch.alloc()));
                      }
                      p.addLast(
                          "idle",
                          new IdleStateHandler(
                              settings.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
                      p.addLast(
                          "lines", new LineBasedFrameDecoder(settings.maxLineLength(), true, true));
                      p.addLast("protocol", new ServerHandler(LockServer.this, settings, parser));
                    }
                  });
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

  private void lockDataDir(Path dataDir) throws IOException {
    FileChannel channel =
        FileChannel.open(
            dataDir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new IOException("data directory " + dataDir + " is in use by another lock server");
    }
    lockFileChannel = channel;
    dataDirLock = lock;
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
  public int port() {
    return port;
  }

  /** Whether the server has been closed. */
  public boolean isClosed() {
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
    shutdown(bossGroup);
    shutdown(workerGroup);
    FencingSequence sequence = fencing;
    // After the tasks already queued (the closed connections' releases and hand-offs), the core
    // thread closes the sequence, which lowers the stored mark to the last token, and only then
    // gives up the data directory: nothing of this server writes the mark after that.
    if (sequence == null
        || !onCore(
            () -> {
              try {
                sequence.close();
              } finally {
                releaseDataDir();
              }
            })) {
      releaseDataDir();
    }
    core.shutdown();
    try {
      if (!core.awaitTermination(2, TimeUnit.SECONDS)) {
        LOG.warn("Lock server core thread still busy; its data directory stays locked until done");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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

  private void releaseDataDir() {
    try {
      if (dataDirLock != null) {
        dataDirLock.release();
      }
      if (lockFileChannel != null) {
        lockFileChannel.close();
      }
    } catch (IOException e) {
      LOG.warn("Cannot release the data directory lock: {}", e.toString());
    }
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /** Counts a new connection in, or refuses it when the limit is reached. */
  boolean admit(Channel channel) {
    if (closed.get() || connections.incrementAndGet() > settings.maxConnections()) {
      connections.decrementAndGet();
      LOG.warn(
          "Refusing connection from {}: {}",
          channel.remoteAddress(),
          closed.get() ? "shutting down" : "limit of " + settings.maxConnections() + " reached");
      return false;
    }
    channels.add(channel);
    channel.closeFuture().addListener(f -> connections.decrementAndGet());
    return true;
  }

  /** How many locks have a holder or waiters, read on the core thread (for tests and health). */
  int lockCount() throws Exception {
    return core.submit(() -> table().size()).get(5, TimeUnit.SECONDS);
  }

  /** Records a connection's count of core tasks in flight; keeps the peak. */
  void countInFlight(int inFlight) {
    if (inFlight > peakInFlight.get()) {
      peakInFlight.accumulateAndGet(inFlight, Math::max);
    }
  }

  /**
   * The most core tasks one connection has had queued or running at once since the start; never
   * above {@link ServerHandler#MAX_IN_FLIGHT} (for tests and health).
   */
  int peakInFlight() {
    return peakInFlight.get();
  }

  LockTable table() {
    return Objects.requireNonNull(table, "not started");
  }

  /** Runs a task on the core thread; false when the server is shutting down. */
  boolean onCore(Runnable task) {
    try {
      core.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException e) {
              LOG.error("Lock server core task failed", e);
            }
          });
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return "LockServer[" + settings.bind() + ":" + (port >= 0 ? port : settings.port()) + "]";
  }

  /** Configures a {@link LockServer}. */
  public static final class Builder {
    private int port = Protocol.DEFAULT_PORT;
    private String bind = "127.0.0.1";
    private @Nullable Path dataDir;
    private @Nullable Secret secret;
    private @Nullable Path tlsCert;
    private @Nullable Path tlsKey;
    private int maxLineLength = 4096;
    private int maxKeyBytes = 1024;
    private int maxConnections = 4096;
    private int maxWaitersPerLock = 1024;
    private int maxLocksPerConnection = 1024;
    private int maxErrors = 10;
    private Duration idleTimeout = Duration.ofMinutes(5);
    private int workerThreads = Math.min(4, Runtime.getRuntime().availableProcessors());
    private long fencingBlock = FencingSequence.DEFAULT_SPAN;

    private Builder() {}

    /** The TCP port; 0 picks a free one, which {@link LockServer#start()} returns. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port " + port + " is outside 0..65535");
      }
      this.port = port;
      return this;
    }

    /** The address to bind; {@code 127.0.0.1} by default, {@code 0.0.0.0} for all interfaces. */
    public Builder bind(String address) {
      this.bind = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Where the fencing high-water mark is kept. Tokens are max(last + 1, the clock in
     * microseconds) either way; the mark keeps them increasing across restarts even if the clock
     * was set back.
     */
    public Builder dataDir(@Nullable Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /** Requires clients to send {@code AUTH <secret>} first; null turns authentication off. */
    public Builder secret(@Nullable String secret) {
      this.secret = secret == null ? null : new Secret(secret);
      return this;
    }

    /** Reads the shared secret from a file (surrounding whitespace and newlines are stripped). */
    public Builder secretFile(Path file) throws IOException {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (text.isEmpty()) {
        throw new IOException("secret file " + file + " is empty");
      }
      this.secret = new Secret(text);
      return this;
    }

    /** Serves TLS with a PEM certificate chain and a PEM PKCS#8 private key. */
    public Builder tls(Path certPem, Path keyPem) {
      this.tlsCert = Objects.requireNonNull(certPem, "certPem");
      this.tlsKey = Objects.requireNonNull(keyPem, "keyPem");
      return this;
    }

    /** The longest request line in bytes, without the newline (default 4096). */
    public Builder maxLineLength(int bytes) {
      this.maxLineLength = positive("maxLineLength", bytes);
      return this;
    }

    /** The longest lock id in UTF-8 bytes after decoding (default 1024). */
    public Builder maxKeyBytes(int bytes) {
      this.maxKeyBytes = positive("maxKeyBytes", bytes);
      return this;
    }

    /** How many connections may be open at once (default 4096). */
    public Builder maxConnections(int count) {
      this.maxConnections = positive("maxConnections", count);
      return this;
    }

    /** How many ACQUIREs may wait for one lock (default 1024). */
    public Builder maxWaitersPerLock(int count) {
      this.maxWaitersPerLock = positive("maxWaitersPerLock", count);
      return this;
    }

    /** How many locks one connection may hold and wait for together (default 1024). */
    public Builder maxLocksPerConnection(int count) {
      this.maxLocksPerConnection = positive("maxLocksPerConnection", count);
      return this;
    }

    /** How many bad lines in a row close a connection (default 10). */
    public Builder maxErrors(int count) {
      this.maxErrors = positive("maxErrors", count);
      return this;
    }

    /** How long a connection may send nothing before it is closed (default 5 minutes). */
    public Builder idleTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be positive, was " + timeout);
      }
      this.idleTimeout = timeout;
      return this;
    }

    /** Netty I/O threads (default: processors, at most 4). */
    public Builder workerThreads(int threads) {
      this.workerThreads = positive("workerThreads", threads);
      return this;
    }

    /**
     * Fencing tokens reserved by each write (with fsync) of the high-water mark in the data
     * directory (default 1,000,000). Tokens follow the clock in microseconds, so under load the
     * mark is written at most once per this many microseconds (once a second by default), and a
     * server restarted after a crash waits at most this long for the clock to pass the stored mark.
     */
    public Builder fencingBlock(long tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("fencingBlock must be positive, was " + tokens);
      }
      this.fencingBlock = tokens;
      return this;
    }

    /** Creates the server; {@link LockServer#start()} binds it. */
    public LockServer build() {
      return new LockServer(
          new ServerSettings(
              port,
              bind,
              dataDir,
              secret,
              tlsCert,
              tlsKey,
              maxLineLength,
              maxKeyBytes,
              maxConnections,
              maxWaitersPerLock,
              maxLocksPerConnection,
              maxErrors,
              idleTimeout,
              workerThreads,
              fencingBlock));
    }

    private static int positive(String name, int value) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}
