package dev.locksmith.tcp;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.tcp.PendingRequests.Pending;
import dev.locksmith.tcp.internal.Protocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the server, shared by all threads of a provider: its requests in flight are
 * kept by {@link PendingRequests}, whose replies complete futures in any order. The leases granted
 * over it are recorded in its {@link ConnectionLeases}; when it closes, those of running work are
 * lost, because the server no longer holds them for this client (it releases them at once, or keeps
 * them for no one until their end when the client did not end the connection), and each is reported
 * to the loss listener before any pending request fails. Leases the server detached (shortened to a
 * minimum hold with HOLD) are not lost: they stay held until their end.
 */
final class ClientConnection extends SimpleChannelInboundHandler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);

  private final String description;
  private final long pingMillis;
  private final PendingRequests requests;
  private final ConnectionLeases leases;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile @Nullable Channel channel;
  private volatile @Nullable String closeReason;
  private volatile boolean deliberate;
  private volatile boolean answered;
  private volatile boolean heard;
  private volatile boolean refused;
  // Lines received, and whether a silence is being probed; event loop only.
  private long lines;
  private boolean probing;

  /**
   * @param description the server as errors and logs name it, such as {@code lock server
   *     127.0.0.1:7420}
   * @param onLost told of every lease this connection held when it closes, on the closing thread
   * @param pingMillis how often a silent connection sends PING
   */
  ClientConnection(
      String description, AtomicLong ids, Consumer<LeaseGrant> onLost, long pingMillis) {
    this.description = description;
    this.pingMillis = pingMillis;
    this.requests =
        new PendingRequests(
            description, ids, () -> closed.get() ? null : channel, () -> closeReason);
    this.leases = new ConnectionLeases(description, this::isOpen, onLost);
  }

  boolean isOpen() {
    Channel ch = channel;
    return !closed.get() && ch != null && ch.isActive();
  }

  /**
   * Whether the server refused this connection at admission: it said {@code BYE too-many-...}
   * before answering anything on it (a full server, or too many connections from this address).
   */
  boolean refused() {
    return refused;
  }

  /** Whether the server sent anything on this connection: a reply, a push line, a BYE. */
  boolean heardAnything() {
    return heard;
  }

  /** Why the connection closed, if the server or the network said; null if it did not say. */
  @Nullable String knownCloseReason() {
    return closeReason;
  }

  /** Why the connection closed, as the server or the network said; a placeholder while open. */
  String closeReason() {
    return Objects.requireNonNullElse(closeReason, "closed");
  }

  /** The leases granted over this connection, as far as the client knows. */
  ConnectionLeases leases() {
    return leases;
  }

  /** Sends {@code <id> <body>} and returns the pending reply. */
  Pending send(String body) {
    return requests.send(body);
  }

  /** Sends the requests of {@code bodies} in one write; see {@link PendingRequests#sendAll}. */
  List<Pending> sendAll(List<String> bodies) {
    return requests.sendAll(bodies);
  }

  /** Fails {@code p} unless its reply comes within {@code nanos}; see {@link PendingRequests}. */
  void expireAfter(Pending p, long nanos) {
    requests.expireAfter(channel, p, nanos);
  }

  /** When the server said the answer to {@code p} would come; empty if it did not. */
  OptionalLong answerDueAt(Pending p) {
    return requests.answerDueAt(p);
  }

  /** How many writes (each with its flush) this connection has made; for tests. */
  long writes() {
    return requests.writes();
  }

  void close(String reason) {
    close(reason, false);
  }

  /**
   * Ends the connection as the application closes the provider: reports its leases of running work
   * lost and fails its pending requests, then sends {@code QUIT}, which the server answers after
   * the requests sent before it and then closes the connection, releasing those leases at once;
   * waits up to {@code millis} for that close, then closes it in any case.
   *
   * <p>The leases are reported first because the server may grant them to a waiter as soon as QUIT
   * reaches it, long before its close reaches this client; a grant still pending then (a waiting
   * ACQUIRE) fails rather than reaching the application as the provider closes, and the server
   * releases it with the rest. A plain close could reach the server as a reset instead (a reply
   * arriving as the socket closes), and the server keeps the leases of a reset connection until
   * their TTL. Called on a thread that runs a Netty event loop, it does not wait.
   */
  void quit(long millis) {
    Channel ch = channel;
    if (ch != null && isOpen()) {
      deliberate = true;
      if (closeReason == null) {
        closeReason = "provider closed";
      }
      onClosed();
      requests.sendUnanswered(ch, "QUIT");
      // On an event loop the close could not happen while it waits (on its own), or it would stall
      // every connection of that loop.
      if (!onEventLoop() && !ch.closeFuture().awaitUninterruptibly(millis)) {
        LOG.debug("{} did not close the connection within {} ms of QUIT", description, millis);
      }
    }
    close("provider closed", true);
  }

  /**
   * Whether the calling thread runs a Netty event loop (this provider's or another's), where a wait
   * would stall every channel of that loop. Other threads Netty built, such as those of a {@code
   * DefaultEventExecutorGroup} meant for blocking work, may wait.
   */
  static boolean onEventLoop() {
    // Netty's event executors record themselves for the thread that runs them; only event loops
    // serve channels.
    return ThreadExecutorMap.currentExecutor() instanceof EventLoop;
  }

  /**
   * Closes the connection.
   *
   * @param deliberate the application closed the provider: the leases of running work that end with
   *     the connection are reported lost as always, but logged at INFO, not as a failure
   */
  void close(String reason, boolean deliberate) {
    if (deliberate) {
      this.deliberate = true;
    }
    if (closeReason == null) {
      closeReason = reason;
    }
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    } else {
      onClosed();
    }
  }

  @Override
  public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
    channel = ctx.channel();
    super.channelRegistered(ctx);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, String line) {
    lines++;
    heard = true;
    Reply reply = Reply.parse(line, System.nanoTime());
    if (reply.id().equals(Protocol.PUSH_ID)) {
      onPush(ctx, reply);
      return;
    }
    if (requests.complete(reply)) {
      answered = true;
    } else {
      LOG.debug("Reply from {} to unknown request: {}", description, line);
    }
  }

  private void onPush(ChannelHandlerContext ctx, Reply reply) {
    if (reply.is("BYE")) {
      LOG.info("The {} closes the connection: {}", description, reply.rest());
      if (!answered && reply.rest().startsWith("too-many")) {
        refused = true;
      }
      closeReason =
          reply.rest().equals("tls-required")
              ? "the server speaks TLS only; add tls=true (and tls-ca=FILE) to the URL"
              : "server said BYE " + reply.rest();
      ctx.close();
    } else if (!requests.noteDelay(reply)) {
      LOG.warn("The {} says: {}", description, reply.line());
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent idle) {
      if (idle.state() == IdleState.READER_IDLE) {
        probeSilence(ctx);
      } else if (idle.state() == IdleState.WRITER_IDLE) {
        send("PING").reply().exceptionally(e -> null);
      }
    }
    super.userEventTriggered(ctx, evt);
  }

  /**
   * Three ping intervals without a line: sends a PING and closes the connection only if no line
   * arrives within one more interval. The silence may be this process's own (a GC pause, a stopped
   * VM): on resuming, the overdue idle timers fire together, before the reply to the PING sent then
   * could arrive, and closing at once would end leases whose TTLs have long to run.
   */
  private void probeSilence(ChannelHandlerContext ctx) {
    if (probing) {
      return;
    }
    probing = true;
    long linesBefore = lines;
    send("PING").reply().exceptionally(e -> null);
    ctx.executor()
        .schedule(
            () -> {
              probing = false;
              if (lines == linesBefore && ctx.channel().isActive()) {
                LOG.warn("The {} has been silent too long; closing the connection", description);
                closeReason =
                    "the server was silent for 3 ping intervals and did not answer a PING within"
                        + " one more";
                ctx.close();
              }
            },
            pingMillis,
            TimeUnit.MILLISECONDS);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    onClosed();
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("Connection to {} failed: {}", description, cause.toString());
    if (closeReason == null) {
      closeReason = ConnectFailures.reason(cause);
    }
    ctx.close();
  }

  private void onClosed() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    leases.endAll(deliberate);
    requests.failAll();
  }

  @Override
  public boolean isSharable() {
    return false;
  }
}
