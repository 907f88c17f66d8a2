package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.tcp.protocol.LockIds;
import dev.locksmith.tcp.protocol.Protocol;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tcp://} provider: one multiplexed connection to a Locksmith lock server.
 *
 * <p>Leases of running work belong to the connection: when it drops, the server releases them at
 * once, so this provider reports every such lease granted over a dropped connection as lost: at
 * once to the {@link #onLeaseLost} callbacks, and afterwards {@code renew} returns empty and {@code
 * release} returns false; it never assumes such a lease is still held. A lease whose RELEASE was in
 * flight when the connection dropped is released, not lost: {@code release} returns true. The next
 * request reconnects, with exponential back-off (100 ms doubling to 1 s) after failed attempts;
 * while backing off requests fail fast with {@link LockProviderException}, or {@link
 * LockConfigurationException} when the server rejected the secret (then 5 s). A lease shortened to
 * a minimum hold (see {@link #renew}) is detached from the connection and is not lost with it.
 *
 * <p>Creating the provider checks its settings only and never connects: the first request does. A
 * connection attempt (TCP, TLS, AUTH) takes at most {@code connect-timeout}, and requests that
 * arrive meanwhile wait for that same attempt; a request on an open connection fails after {@code
 * request-timeout} (plus the wait an ACQUIRE asks for) without a reply.
 *
 * <p>Local deadlines are conservative: the time the ACQUIRE or RENEW was sent plus the TTL, and
 * TTLs are rounded up to whole milliseconds on the wire. A grant pushed after a long wait is
 * returned as the server gave it, with little or none of that deadline left; this provider holds no
 * timing policy of its own, and the engine renews such a grant before using it.
 */
final class TcpLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(TcpLockProvider.class);

  /**
   * The longest pause between two connection attempts: a request made after the server is back
   * fails fast for at most this long.
   */
  private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** After the server rejected the secret, which does not fix itself soon. */
  private static final long REJECTED_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final int MAX_REPLY_LINE = 64 * 1024;

  private final TcpProviderSettings settings;
  private final @Nullable SslContext ssl;
  // Created by the first connection attempt, under connectLock.
  private volatile @Nullable EventLoopGroup group;
  private final AtomicLong ids = new AtomicLong();
  private final ReentrantLock connectLock = new ReentrantLock();
  private final List<Consumer<LeaseGrant>> lossCallbacks = new CopyOnWriteArrayList<>();
  private volatile @Nullable ClientConnection connection;
  private volatile boolean closed;
  private volatile boolean holdUnknown;
  // Guarded by connectLock, which is never held while connecting or waiting.
  private @Nullable CompletableFuture<ClientConnection> attempt;
  private int failures;
  private long nextAttemptNanos;
  private @Nullable RuntimeException lastFailure;

  /**
   * Creates the provider without connecting: the first request connects. Fails only for settings
   * that cannot work (TLS that cannot be set up from {@code tls-ca}).
   */
  TcpLockProvider(TcpProviderSettings settings) {
    this.settings = settings;
    this.ssl = settings.tls() ? clientSsl(settings) : null;
  }

  /** The I/O thread's group, made by the first connection attempt. */
  private EventLoopGroup group() {
    connectLock.lock();
    try {
      if (closed) {
        throw new LockProviderException("provider for " + settings + " is closed");
      }
      EventLoopGroup g = group;
      if (g == null) {
        // A daemon I/O thread: a provider nobody closed must not keep the JVM from exiting.
        g =
            new MultiThreadIoEventLoopGroup(
                1,
                new DefaultThreadFactory("locksmith-tcp-client", true),
                NioIoHandler.newFactory());
        group = g;
      }
      return g;
    } finally {
      connectLock.unlock();
    }
  }

  private static SslContext clientSsl(TcpProviderSettings settings) {
    try {
      SslContextBuilder builder =
          SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS");
      if (settings.tlsCa() != null) {
        builder.trustManager(settings.tlsCa().toFile());
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new LockConfigurationException(
          "Provider "
              + settings
              + ": cannot set up TLS with tls-ca '"
              + settings.tlsCa()
              + "': "
              + e,
          e);
    }
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    ClientConnection c = connection();
    ClientConnection.Pending p = c.send(acquireLine(request, 0));
    Reply reply;
    try {
      reply = await(p, settings.requestTimeout().toNanos());
    } catch (InterruptedException e) {
      abandon(c, p, request);
      Thread.currentThread().interrupt();
      throw new LockProviderException("interrupted while acquiring '" + request.lockId() + "'", e);
    } catch (TimeoutException e) {
      abandonLater(c, p, request);
      throw noReply("ACQUIRE '" + request.lockId() + "'", e);
    }
    return grant(c, request, reply, p, "ACQUIRE");
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring '" + request.lockId() + "'");
    }
    long waitMillis = ceilMillis(timeout);
    ClientConnection c = connection();
    ClientConnection.Pending p = c.send(acquireLine(request, waitMillis));
    Reply reply;
    try {
      reply =
          await(p, TimeUnit.MILLISECONDS.toNanos(waitMillis) + settings.requestTimeout().toNanos());
    } catch (InterruptedException e) {
      abandon(c, p, request);
      throw e;
    } catch (TimeoutException e) {
      abandonLater(c, p, request);
      throw noReply("ACQUIRE '" + request.lockId() + "'", e);
    }
    return grant(c, request, reply, p, "ACQUIRE");
  }

  private static long ceilMillis(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      return 0;
    }
    if (timeout.compareTo(Duration.ofMillis(Protocol.MAX_MILLIS)) >= 0) {
      return Protocol.MAX_MILLIS;
    }
    long millis = timeout.toMillis();
    return timeout.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
  }

  private String acquireLine(LockRequest request, long waitMillis) {
    String owner = sanitize(request.owner());
    return "ACQUIRE "
        + LockIds.encode(request.lockId())
        + " "
        + ttlMillis(request.ttl())
        + " "
        + waitMillis
        + " "
        + wireToken(request.ownerToken())
        + (owner.isEmpty() ? "" : " " + owner);
  }

  /**
   * The owner token as sent: percent-encoded like a lock id, so any token the SPI allows fits the
   * protocol's "printable ASCII without spaces"; a lone "-" (which asks the server for a token) is
   * escaped.
   */
  static String wireToken(String ownerToken) {
    return ownerToken.equals("-") ? "%2D" : LockIds.encode(ownerToken);
  }

  /** The TTL on the wire: whole milliseconds rounded up, so the server never ends it earlier. */
  static long ttlMillis(Duration ttl) {
    return Math.max(1, ceilMillis(ttl));
  }

  private static String sanitize(String owner) {
    StringBuilder out = new StringBuilder(Math.min(owner.length(), 200));
    for (int i = 0; i < owner.length() && out.length() < 200; i++) {
      char c = owner.charAt(i);
      out.append(c < 0x20 || c == 0x7F ? '?' : c);
    }
    return out.toString().strip();
  }

  /**
   * Turns an ACQUIRE reply into a grant. The local deadline is conservative: the ACQUIRE's send
   * time plus the ttl, since the server granted no earlier than that, even when the grant was
   * pushed long after (the engine renews a grant that arrives with too little time left). The
   * connection records the lease as learned when the reply arrived.
   */
  private Optional<LeaseGrant> grant(
      ClientConnection c, LockRequest request, Reply reply, ClientConnection.Pending p, String op) {
    switch (reply.kind()) {
      case "OK" -> {
        List<String> f = reply.fields(3);
        long fencing = parseLong(reply, f, 1);
        LeaseGrant lease =
            new LeaseGrant(
                request.lockId(),
                request.ownerToken(),
                fencing,
                request.ttl(),
                p.sentNanos() + request.ttl().toNanos());
        c.granted(lease, reply.arrivedNanos(), false);
        if (!c.isOpen()) {
          throw new ConnectionLostException(
              "connection to "
                  + settings.server()
                  + " lost just after '"
                  + request.lockId()
                  + "' was granted;"
                  + " the server released it");
        }
        return Optional.of(lease);
      }
      case "BUSY", "TIMEOUT", "CANCELLED" -> {
        return Optional.empty();
      }
      default -> throw refused(op + " '" + request.lockId() + "'", reply);
    }
  }

  /**
   * Withdraws an ACQUIRE the caller gave up on: CANCEL it, wait for its final reply, and release
   * the lease if it was granted first. When the server does not answer, drops the connection, which
   * releases everything it held on the server.
   */
  private void abandon(ClientConnection c, ClientConnection.Pending p, LockRequest request) {
    boolean interrupted = false;
    try {
      c.send("CANCEL " + p.id()).reply().exceptionally(e -> null);
      long limit = settings.requestTimeout().toNanos();
      Reply reply;
      while (true) {
        try {
          reply = await(p, limit);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (reply.is("OK")) {
        ClientConnection.Pending release =
            c.send(
                "RELEASE "
                    + LockIds.encode(request.lockId())
                    + " "
                    + wireToken(request.ownerToken()));
        while (true) {
          try {
            await(release, limit);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
    } catch (TimeoutException e) {
      LOG.warn("No reply from {} while cancelling an ACQUIRE; dropping the connection", settings);
      c.close("no reply while cancelling");
    } catch (LockProviderException e) {
      LOG.debug("Connection lost while cancelling an ACQUIRE: {}", e.getMessage());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Withdraws an ACQUIRE that got no reply in time without making the caller wait any longer:
   * CANCEL it, release the lease if its reply turns out to be a grant, and drop the connection
   * (which releases everything it held on the server) if no reply comes within another {@code
   * request-timeout}.
   */
  private void abandonLater(ClientConnection c, ClientConnection.Pending p, LockRequest request) {
    c.send("CANCEL " + p.id()).reply().exceptionally(e -> null);
    p.reply()
        .thenAccept(
            reply -> {
              if (reply.is("OK")) {
                c.send(
                        "RELEASE "
                            + LockIds.encode(request.lockId())
                            + " "
                            + wireToken(request.ownerToken()))
                    .reply()
                    .exceptionally(e -> null);
              }
            });
    EventLoopGroup g = group;
    try {
      if (g == null) {
        throw new RejectedExecutionException("no I/O thread");
      }
      g.schedule(
          () -> {
            if (!p.reply().isDone()) {
              LOG.warn(
                  "No reply from {} to an ACQUIRE or its CANCEL; dropping the connection",
                  settings);
              c.close(
                  "no reply to an ACQUIRE or its CANCEL within "
                      + ConnectFailures.requestTimeout(settings));
            }
          },
          settings.requestTimeout().toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      c.close("provider closed", true);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A renewal to the lease's own ttl is a RENEW: the lease stays tied to the connection. A
   * renewal to any other ttl is what the engine sends when the work is done but a minimum hold is
   * left (it renews running work with the lease's own ttl, always): it is sent as HOLD, which
   * detaches the lease from the connection, so it stays held until its new end even if this
   * provider is closed or its connection drops. A server too old to know HOLD gets a RENEW, and the
   * lease stays tied to the connection.
   *
   * <p>Returns empty when the connection the lease was granted over has dropped, also while the
   * request is in flight: the server released the lease with the connection, so it is lost (and
   * reported to the {@link #onLeaseLost} callbacks).
   */
  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    ClientConnection c = connection;
    if (c == null || !c.holds(lease.ownerToken(), lease.lockId())) {
      return Optional.empty();
    }
    boolean hold = !ttl.equals(lease.ttl()) && !holdUnknown;
    String arguments =
        LockIds.encode(lease.lockId()) + " " + wireToken(lease.ownerToken()) + " " + ttlMillis(ttl);
    ClientConnection.Pending p = c.send((hold ? "HOLD " : "RENEW ") + arguments);
    Reply reply;
    try {
      reply = awaitUninterruptibly(p, (hold ? "HOLD '" : "RENEW '") + lease.lockId() + "'");
      if (hold && reply.is("ERR") && reply.rest().startsWith("UNKNOWN_COMMAND")) {
        holdUnknown = true;
        hold = false;
        LOG.info(
            "Server {} does not know HOLD (an older version): leases kept for their minimum hold"
                + " stay tied to the connection",
            settings);
        p = c.send("RENEW " + arguments);
        reply = awaitUninterruptibly(p, "RENEW '" + lease.lockId() + "'");
      }
    } catch (ConnectionLostException e) {
      return Optional.empty();
    }
    switch (reply.kind()) {
      case "OK" -> {
        LeaseGrant renewed = lease.renewed(ttl, p.sentNanos() + ttl.toNanos());
        c.granted(renewed, reply.arrivedNanos(), hold);
        return Optional.of(renewed);
      }
      case "NOTHELD" -> {
        c.forget(lease.ownerToken());
        return Optional.empty();
      }
      default -> throw refused((hold ? "HOLD '" : "RENEW '") + lease.lockId() + "'", reply);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Returns false at once when the client already knows the lease is gone: its connection
   * dropped (the lease was reported lost), or it was released, renewed to NOTHELD or pruned. When
   * the connection drops while the RELEASE is in flight, returns true: the lease was held on that
   * connection when the RELEASE was sent, and the server releases every lease of a closed
   * connection at once, so it is released either way (and not reported lost).
   */
  @Override
  public boolean release(LeaseGrant lease) {
    ClientConnection c = connection;
    if (c == null || !c.startRelease(lease.ownerToken(), lease.lockId())) {
      return false;
    }
    ClientConnection.Pending p =
        c.send("RELEASE " + LockIds.encode(lease.lockId()) + " " + wireToken(lease.ownerToken()));
    Reply reply;
    try {
      reply = awaitUninterruptibly(p, "RELEASE '" + lease.lockId() + "'");
    } catch (ConnectionLostException e) {
      if (c.isOpen()) {
        // Only the write failed; the connection, and with it the lease, lives on.
        c.releaseUnknown(lease.ownerToken());
        throw e;
      }
      LOG.debug(
          "Connection lost while releasing '{}'; the server released it with the connection",
          lease.lockId());
      c.forget(lease.ownerToken());
      return true;
    } catch (RuntimeException e) {
      c.releaseUnknown(lease.ownerToken());
      throw e;
    }
    c.forget(lease.ownerToken());
    switch (reply.kind()) {
      case "OK" -> {
        return true;
      }
      case "NOTHELD" -> {
        return false;
      }
      default -> throw refused("RELEASE '" + lease.lockId() + "'", reply);
    }
  }

  @Override
  public LockStatus status(String lockId) {
    ClientConnection c = connection();
    Reply reply =
        awaitUninterruptibly(c.send("STATUS " + LockIds.encode(lockId)), "STATUS '" + lockId + "'");
    switch (reply.kind()) {
      case "FREE" -> {
        return new LockStatus(lockId, null, (int) parseLong(reply, reply.fields(1), 0));
      }
      case "HELD" -> {
        List<String> f = reply.fields(4);
        long fencing = parseLong(reply, f, 0);
        long left = parseLong(reply, f, 1);
        int waiters = (int) parseLong(reply, f, 2);
        String owner = f.size() > 3 ? f.get(3) : "-";
        return new LockStatus(
            lockId, new LockStatus.Holder(owner, fencing, Duration.ofMillis(left)), waiters);
      }
      default -> throw refused("STATUS '" + lockId + "'", reply);
    }
  }

  /**
   * Registers a callback told, on the provider's I/O thread, of every lease lost because its
   * connection closed (network failure, server restart or {@code BYE}, silence, a dropped
   * connection after an unanswered CANCEL): the server has released those leases and may have
   * granted them to others already. The callback must be quick and must not call this provider.
   */
  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    java.util.Objects.requireNonNull(callback, "callback");
    lossCallbacks.add(callback);
    return () -> lossCallbacks.remove(callback);
  }

  private void leaseLost(LeaseGrant lease) {
    for (Consumer<LeaseGrant> callback : lossCallbacks) {
      try {
        callback.accept(lease);
      } catch (RuntimeException e) {
        LOG.warn("A lease-lost callback failed for '{}'", lease.lockId(), e);
      }
    }
  }

  /**
   * The server's counters, from one {@code STATS} request.
   *
   * @throws LockProviderException when the server cannot be reached or refuses
   */
  TcpServerStats serverStats() {
    ClientConnection c = connection();
    Reply reply = awaitUninterruptibly(c.send("STATS"), "STATS");
    if (!reply.is("STATS")) {
      throw refused("STATS", reply);
    }
    return TcpServerStats.parse(settings.description(), reply.rest());
  }

  @Override
  public String description() {
    return settings.description();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Closes the connection: the server releases at once the leases of running work held over it
   * (they are reported to the {@link #onLeaseLost} callbacks and logged at INFO), while leases kept
   * for a minimum hold stay held until their end.
   */
  @Override
  public void close() {
    closed = true;
    ClientConnection c = connection;
    if (c != null) {
      c.close("provider closed", true);
    }
    EventLoopGroup g;
    connectLock.lock();
    try {
      g = group;
    } finally {
      connectLock.unlock();
    }
    if (g != null) {
      g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "TcpLockProvider[" + settings + "]";
  }

  /**
   * The live connection, connecting (subject to back-off) when there is none. Returns or fails
   * within {@code connect-timeout}: one caller connects, and callers that come meanwhile wait for
   * that attempt instead of starting their own; while backing off after a failed attempt it fails
   * at once, naming the last failure.
   */
  ClientConnection connection() {
    ClientConnection c = connection;
    if (c != null && c.isOpen()) {
      return c;
    }
    long entered = System.nanoTime();
    CompletableFuture<ClientConnection> mine = null;
    CompletableFuture<ClientConnection> theirs;
    connectLock.lock();
    try {
      c = connection;
      if (c != null && c.isOpen()) {
        return c;
      }
      if (closed) {
        throw new LockProviderException("provider for " + settings + " is closed");
      }
      theirs = attempt;
      if (theirs == null) {
        long now = System.nanoTime();
        RuntimeException last = lastFailure;
        if (last != null && now - nextAttemptNanos < 0) {
          throw backingOff(last, TimeUnit.NANOSECONDS.toMillis(nextAttemptNanos - now) + 1);
        }
        mine = new CompletableFuture<>();
        attempt = mine;
      }
    } finally {
      connectLock.unlock();
    }
    return mine != null ? connectNow(mine) : awaitAttempt(theirs, entered);
  }

  private ClientConnection connectNow(CompletableFuture<ClientConnection> mine) {
    ClientConnection c = null;
    RuntimeException failure = null;
    try {
      c = open();
    } catch (RuntimeException e) {
      failure = e;
    } catch (Error e) {
      connectLock.lock();
      try {
        attempt = null;
      } finally {
        connectLock.unlock();
      }
      mine.completeExceptionally(e);
      throw e;
    }
    connectLock.lock();
    try {
      attempt = null;
      if (failure == null && closed) {
        c.close("provider closed", true);
        failure = new LockProviderException("provider for " + settings + " is closed");
      } else if (failure == null) {
        failures = 0;
        lastFailure = null;
        connection = c;
      } else {
        failures++;
        lastFailure = failure;
        long backoff =
            failure instanceof LockConfigurationException
                ? REJECTED_BACKOFF_NANOS
                : Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(failures - 1, 16));
        nextAttemptNanos = System.nanoTime() + backoff;
      }
    } finally {
      connectLock.unlock();
    }
    if (failure != null) {
      LOG.debug("Connecting to {} failed: {}", settings, failure.getMessage());
      mine.completeExceptionally(failure);
      throw failure;
    }
    mine.complete(c);
    return c;
  }

  /**
   * Waits for the attempt another caller is making. It started before this caller came and ends
   * within {@code connect-timeout} of its start, so this returns or fails with it within {@code
   * connect-timeout}; the wait is cut at twice that only should the attempt somehow hang.
   */
  private ClientConnection awaitAttempt(CompletableFuture<ClientConnection> theirs, long entered) {
    long deadline = entered + 2 * settings.connectTimeout().toNanos();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return theirs.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw new LockProviderException(
              settings.server()
                  + " did not complete the connection within "
                  + ConnectFailures.connectTimeout(settings),
              e);
        } catch (ExecutionException e) {
          throw sameFailure(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The failure of a shared attempt, thrown anew for another caller, with it as the cause. */
  private static RuntimeException sameFailure(Throwable failure) {
    if (failure instanceof LockConfigurationException e) {
      return new LockConfigurationException(e.getMessage(), e);
    }
    if (failure instanceof LockProviderException e) {
      return new LockProviderException(e.getMessage(), e);
    }
    return new LockProviderException("connecting failed: " + failure, failure);
  }

  private static RuntimeException backingOff(RuntimeException last, long millis) {
    String message = last.getMessage() + "; next attempt in " + millis + " ms";
    return last instanceof LockConfigurationException
        ? new LockConfigurationException(message, last)
        : new LockProviderException(message, last);
  }

  private ClientConnection open() {
    ClientConnection c = new ClientConnection(settings.server(), ids, this::leaseLost);
    long pingMillis = settings.pingInterval().toMillis();
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group())
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ChannelPipeline pipeline = ch.pipeline();
                    if (ssl != null) {
                      pipeline.addLast(
                          "tls", ssl.newHandler(ch.alloc(), settings.host(), settings.port()));
                    }
                    // Requests from many threads arrive as separate writes; flush them together.
                    pipeline.addLast("flush", new FlushConsolidationHandler(256, true));
                    pipeline.addLast(
                        "idle",
                        new IdleStateHandler(3 * pingMillis, pingMillis, 0, TimeUnit.MILLISECONDS));
                    pipeline.addLast("lines", new LineBasedFrameDecoder(MAX_REPLY_LINE));
                    pipeline.addLast("text", new StringDecoder(StandardCharsets.UTF_8));
                    pipeline.addLast("client", c);
                  }
                });
    // One deadline for the TCP connect, the TLS handshake and AUTH.
    long deadline = System.nanoTime() + settings.connectTimeout().toNanos();
    ChannelFuture connect = bootstrap.connect(settings.host(), settings.port());
    if (!connect.awaitUninterruptibly(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
      connect.cancel(false);
      connect.channel().close();
      throw ConnectFailures.connect(settings, null);
    }
    if (!connect.isSuccess()) {
      throw ConnectFailures.connect(settings, connect.cause());
    }
    try {
      SslHandler tls = connect.channel().pipeline().get(SslHandler.class);
      if (tls != null) {
        io.netty.util.concurrent.Future<?> handshake = tls.handshakeFuture();
        if (!handshake.awaitUninterruptibly(
            Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          throw ConnectFailures.handshake(settings, null);
        }
        if (!handshake.isSuccess()) {
          throw ConnectFailures.handshake(settings, handshake.cause());
        }
      }
      String secret = settings.secret();
      if (secret != null) {
        Reply reply = awaitAuth(c.send("AUTH " + secret), deadline);
        if (!reply.is("OK")) {
          throw new LockConfigurationException(
              "Provider "
                  + settings
                  + ": the server rejected the secret (check secret-file): "
                  + reply.rest());
        }
      }
    } catch (RuntimeException e) {
      c.close("connect failed");
      throw e;
    }
    LOG.debug("Connected to {}", settings);
    return c;
  }

  private Reply awaitAuth(ClientConnection.Pending p, long deadline) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return await(p, deadline - System.nanoTime());
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw ConnectFailures.authTimeout(settings, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Reply await(ClientConnection.Pending p, long nanos)
      throws InterruptedException, TimeoutException {
    try {
      return p.reply().get(nanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof LockProviderException lpe) {
        throw lpe;
      }
      throw new LockProviderException("request failed: " + e.getCause(), e.getCause());
    }
  }

  private Reply awaitUninterruptibly(ClientConnection.Pending p, String what) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + settings.requestTimeout().toNanos();
    try {
      while (true) {
        try {
          return await(p, deadline - System.nanoTime());
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw noReply(what, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private LockProviderException noReply(String what, Exception cause) {
    return new LockProviderException(
        settings.server()
            + " did not answer "
            + what
            + " within "
            + ConnectFailures.requestTimeout(settings),
        cause);
  }

  private LockProviderException refused(String what, Reply reply) {
    return new LockProviderException(
        settings + " refused " + what + ": '" + reply.kind() + " " + reply.rest() + "'");
  }

  private long parseLong(Reply reply, List<String> fields, int index) {
    try {
      return Long.parseLong(fields.get(index));
    } catch (RuntimeException e) {
      throw new LockProviderException(
          settings + " sent a malformed reply: '" + reply.line() + "' (field " + (index + 1) + ")",
          e);
    }
  }
}
