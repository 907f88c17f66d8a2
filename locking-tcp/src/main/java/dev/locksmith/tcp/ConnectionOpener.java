package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
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
import java.util.OptionalLong;
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
 * Opens one connection to the server: the TCP connect, the TLS handshake and AUTH, all within one
 * {@code connect-timeout}, on the provider's single daemon I/O thread (made by the first attempt).
 * Each failure is one line naming the server and what failed ({@link ConnectFailures}); a rejected
 * secret is a {@link LockConfigurationException}.
 */
final class ConnectionOpener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionOpener.class);

  /**
   * The longest reply line taken from the server. A reply names at most one lock id of a request
   * the server accepted (a {@code BUSY} to an {@code ACQUIRE-ALL}), as long as that id was sent:
   * with a raised {@code maxKeyBytes} that can pass 64 KiB. The limit only guards against a server
   * that sends no newline.
   */
  private static final int MAX_REPLY_LINE = 16 * 1024 * 1024;

  private final TcpProviderSettings settings;
  private final @Nullable SslContext ssl;
  private final Consumer<LeaseGrant> onLost;
  private final AtomicLong ids = new AtomicLong();
  private final ReentrantLock groupLock = new ReentrantLock();
  // Created by the first connection attempt, under groupLock.
  private volatile @Nullable EventLoopGroup group;
  private boolean closed;

  /**
   * Sets up TLS from the settings without connecting. Fails only for settings that cannot work (TLS
   * that cannot be set up from {@code tls-ca}).
   *
   * @param onLost told of every lease lost with a connection this opens
   */
  ConnectionOpener(TcpProviderSettings settings, Consumer<LeaseGrant> onLost) {
    this.settings = settings;
    this.ssl = settings.tls() ? clientSsl(settings) : null;
    this.onLost = onLost;
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

  /**
   * Runs {@code task} on the I/O thread after {@code nanos}.
   *
   * @throws RejectedExecutionException when there is no I/O thread (never connected, or closed)
   */
  void schedule(Runnable task, long nanos) {
    EventLoopGroup g = group;
    if (g == null) {
      throw new RejectedExecutionException("no I/O thread");
    }
    g.schedule(task, nanos, TimeUnit.NANOSECONDS);
  }

  /** The I/O thread's group, made by the first connection attempt. */
  private EventLoopGroup group() {
    groupLock.lock();
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
      groupLock.unlock();
    }
  }

  /**
   * Opens a connection, authenticated when there is a secret.
   *
   * @throws LockProviderException when the server cannot be reached in time or the handshake fails
   * @throws LockConfigurationException when the server rejected the secret
   */
  ClientConnection open() {
    long pingMillis = settings.pingInterval().toMillis();
    ClientConnection c = new ClientConnection(settings.server(), ids, onLost, pingMillis);
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
        Reply reply = awaitAuth(c, c.send(RequestLines.auth(secret)), deadline);
        if (!reply.is("OK") && !reply.rest().startsWith("AUTH ")) {
          // ERR LIMIT (the server is full) or anything else but a wrong secret: an outage.
          throw new LockProviderException(
              "Provider " + settings + ": the server refused the connection: " + reply.rest());
        }
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

  /**
   * The answer to AUTH by {@code deadline}, or by {@code connect-timeout} after the time the server
   * said it would come ({@code * DELAYED}, for a wrong secret), if that is later.
   */
  private Reply awaitAuth(ClientConnection c, PendingRequests.Pending p, long deadline) {
    long until = deadline;
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return Replies.await(p, until - System.nanoTime());
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          OptionalLong due = c.answerDueAt(p);
          long extended =
              due.isPresent() ? due.getAsLong() + settings.connectTimeout().toNanos() : until;
          if (extended - until <= 0) {
            throw ConnectFailures.authTimeout(settings, e);
          }
          until = extended;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Stops the I/O thread; every later {@link #open} fails. Waits for it to end, except on an event
   * loop (its own among them).
   */
  void close() {
    EventLoopGroup g;
    groupLock.lock();
    try {
      closed = true;
      g = group;
    } finally {
      groupLock.unlock();
    }
    if (g == null) {
      return;
    }
    var terminated = g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    // On one of the group's own threads it cannot end while this waits; on another event loop a
    // wait would stall that loop's channels.
    if (!ClientConnection.onEventLoop()) {
      terminated.awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }
}
