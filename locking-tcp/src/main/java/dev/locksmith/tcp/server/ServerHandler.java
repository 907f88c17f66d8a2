package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's protocol front end, on its event loop: decodes and parses lines, enforces
 * authentication (with its deadline and the throttling of wrong secrets) and the error limit, and
 * hands every request to the core thread, which answers it. Because every answer, including PONG,
 * AUTH and protocol errors, is sent from the single core thread in request order, replies to
 * requests that do not wait keep request order and QUIT closes the connection only after the
 * earlier replies were flushed.
 *
 * <p>When the client shuts down its sending side (a half-close, as {@code nc -N} or a script that
 * closes its output does), every request read before is still answered, and then the connection is
 * closed; ACQUIREs still waiting then are answered CANCELLED.
 *
 * <p>Memory stays bounded in two ways: reads pause while the connection's outbound buffer is full
 * (the client does not read its replies), and while {@link #MAX_IN_FLIGHT} of the connection's
 * requests are queued or running on the core thread (the client pipelines faster than the core
 * answers); the line decoder then stops splitting what was read, so that a line or two waits in the
 * backlog, not every line of the last read, and no line of it is answered into a full buffer.
 *
 * <p>{@link LineText} decodes the lines, {@link Authentication} handles AUTH and its deadline, and
 * {@link CoreHandOver} hands the requests to the core thread.
 */
final class ServerHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandler.class);

  /** The most core tasks one connection may have queued or running; reads pause at this bound. */
  static final int MAX_IN_FLIGHT = 64;

  /** Reads resume when the connection's core tasks drain to this many. */
  static final int RESUME_AT = MAX_IN_FLIGHT / 2;

  private final ServerRuntime server;
  private final ServerSettings settings;
  private final RequestParser parser;
  private final ServerMetrics metrics;
  private final RequestLineDecoder lines;

  /**
   * Frames (ByteBuf) and rejected frames (ProtocolException) not yet handed on; event loop only.
   */
  private final ArrayDeque<Object> backlog = new ArrayDeque<>();

  /** Work read but not yet handed to the core thread; event loop only. */
  private final CoreHandOver toCore;

  /** AUTH and its deadline; event loop only. */
  private final Authentication authentication;

  private final LineText lineText = new LineText();
  private @Nullable Session session;

  ServerHandler(
      ServerRuntime server,
      ServerSettings settings,
      RequestParser parser,
      RequestLineDecoder lines) {
    this.server = server;
    this.settings = settings;
    this.parser = parser;
    this.lines = lines;
    this.metrics = server.metrics();
    this.toCore = new CoreHandOver(server, (ctx, current) -> drain(ctx, current, true));
    this.authentication = new Authentication(server, settings, toCore);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    boolean authRequired = settings.secret() != null;
    Session created = new Session(ctx.channel(), !authRequired, server);
    String refusal = server.admit(created, authRequired);
    if (refusal != null) {
      ctx.writeAndFlush(ByteBufUtil.writeAscii(ctx.alloc(), "* BYE " + refusal + "\n"))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    session = created;
    if (authRequired) {
      authentication.startDeadline(ctx, () -> authTimedOut(ctx, created));
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    discardBacklog();
    authentication.cancelDeadline();
    Session closed = session;
    if (closed != null) {
      session = null;
      if (!closed.admissionKeptForAnswer) {
        server.admission().closed(closed.address, closed.authenticated);
      }
      long closedAt = System.nanoTime();
      boolean endedByClient = closed.endedByClient;
      server.onCore(() -> server.table().sessionClosed(closed, closedAt, endedByClient));
    }
    ctx.fireChannelInactive();
  }

  private void authTimedOut(ChannelHandlerContext ctx, Session current) {
    if (session != current || current.authenticated || current.closing) {
      return;
    }
    LOG.debug(
        "Connection {} did not authenticate within {}; closing it",
        current,
        settings.authTimeout());
    metrics.authTimeouts.increment();
    current.closing = true;
    discardBacklog();
    if (!toCore.submit(ctx, current, () -> current.sendAndClose("* BYE auth-timeout"), null)) {
      ctx.close();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Session current = session;
    if (current == null || current.closing || !ctx.channel().isActive()) {
      ReferenceCountUtil.release(msg);
      return;
    }
    backlog.add(msg);
    server.peaks().backlog().record(backlog.size());
    drain(ctx, current, false);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    Session current = session;
    if (current != null) {
      toCore.handOver(ctx, current);
    }
    ctx.fireChannelReadComplete();
  }

  /**
   * Turns queued lines into work for the core thread while the connection has room in flight, then
   * pauses or resumes reading; once the client's input has ended and every line was handed on, asks
   * the core to close the connection after the answers. The work is handed over at once when {@code
   * now}, else at the end of the read ({@link #channelReadComplete}). Event loop only.
   */
  private void drain(ChannelHandlerContext ctx, Session current, boolean now) {
    Object next;
    while (!current.closing
        && current.inFlight.get() < MAX_IN_FLIGHT
        && (next = backlog.poll()) != null) {
      if (next instanceof ProtocolException rejected) {
        reject(ctx, current, rejected);
        continue;
      }
      ByteBuf frame = (ByteBuf) next;
      try {
        onLine(ctx, current, frame);
      } finally {
        frame.release();
      }
    }
    if (current.closing) {
      discardBacklog();
    } else if (current.inputShutdown && backlog.isEmpty()) {
      current.closing = true;
      if (!toCore.submit(ctx, current, () -> server.table().inputEnded(current), null)) {
        ctx.close();
      }
    }
    if (now) {
      toCore.handOver(ctx, current);
    }
    updateReading(ctx, current);
  }

  private void discardBacklog() {
    Object next;
    while ((next = backlog.poll()) != null) {
      ReferenceCountUtil.release(next);
    }
  }

  /**
   * Reads, and splits the lines already read, only while replies can be sent and the connection has
   * room in flight (splitting on while replies cannot be sent would queue the answers to every line
   * of the last read); the lines a resumed split hands on go to the core at once.
   */
  private void updateReading(ChannelHandlerContext ctx, @Nullable Session current) {
    boolean room = current == null || backlog.isEmpty() && current.inFlight.get() < MAX_IN_FLIGHT;
    Channel channel = ctx.channel();
    boolean read = channel.isWritable() && room;
    if (channel.config().isAutoRead() != read) {
      channel.config().setAutoRead(read);
    }
    if (!read) {
      lines.pause();
    } else if (lines.resume() && current != null) {
      toCore.handOver(ctx, current);
    }
  }

  private void onLine(ChannelHandlerContext ctx, Session current, ByteBuf frame) {
    metrics.requests.increment();
    Request request;
    try {
      request = parser.parse(lineText.of(frame));
    } catch (ProtocolException e) {
      reject(ctx, current, e);
      return;
    }
    if (request instanceof Request.Quit) {
      current.closing = true;
      current.endedByClient = true;
      toCore.enqueue(
          current,
          () -> {
            server.table().cancelWaits(current);
            current.sendAndClose(request.id() + " BYE");
          },
          null);
      return;
    }
    if (request instanceof Request.Auth auth) {
      authentication.authenticate(ctx, current, auth);
      return;
    }
    if (!current.authenticated) {
      reject(
          ctx,
          current,
          new ProtocolException(
              request.id(), "AUTH", "authentication required; send '<id> AUTH <secret>' first"));
      return;
    }
    current.errors = 0;
    String refusal = request.id() + " ERR SHUTTING_DOWN the server is stopping";
    if (request instanceof Request.Ping) {
      toCore.enqueue(current, () -> current.send(request.id() + " PONG"), refusal);
      return;
    }
    long received = System.nanoTime();
    toCore.enqueue(current, () -> server.table().handle(current, request, received), refusal);
  }

  private void reject(ChannelHandlerContext ctx, Session current, ProtocolException e) {
    String reply = e.replyLine();
    if (overALimit(current, e)) {
      // A well-framed request of an authenticated client over a size limit (a lock id from user
      // input, say) is refused alone, however many come in a row: closing the connection would
      // end every lease it carries. Garbage lines still count.
      toCore.enqueue(current, () -> current.send(reply), null);
      return;
    }
    if (++current.errors >= settings.maxErrors()) {
      LOG.info("Connection {} sent {} bad lines in a row; closing it", current, current.errors);
      current.closing = true;
      toCore.submit(
          ctx,
          current,
          () -> {
            current.send(reply);
            server.table().cancelWaits(current);
            current.sendAndClose("* BYE too-many-errors");
          },
          null);
    } else {
      toCore.enqueue(current, () -> current.send(reply), null);
    }
  }

  private static boolean overALimit(Session current, ProtocolException e) {
    return current.authenticated
        && e.requestId() != null
        && (e.code().equals("LIMIT") || e.code().equals("LINE_TOO_LONG"));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    Session current = session;
    if (evt instanceof ChannelInputShutdownEvent && current != null) {
      current.inputShutdown = true;
      current.endedByClient = true;
      drain(ctx, current, true);
    } else if (evt instanceof IdleStateEvent && current != null) {
      LOG.debug("Connection {} idle for {}; closing it", current, settings.idleTimeout());
      closeNow(ctx, current, "* BYE idle");
    } else if (evt == LineDeadline.EXCEEDED && current != null) {
      LOG.debug(
          "Connection {} did not finish a line within {}; closing it",
          current,
          settings.lineTimeout());
      metrics.lineTimeouts.increment();
      closeNow(ctx, current, "* BYE line-timeout");
    } else if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
      LOG.debug(
          "TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), handshake.cause());
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  /** Says why and closes at once, without waiting for replies still being worked on. */
  private void closeNow(ChannelHandlerContext ctx, Session current, String line) {
    current.closing = true;
    current.closedByServer = true;
    discardBacklog();
    CloseAfterWrite.close(ctx.writeAndFlush(ByteBufUtil.writeUtf8(ctx.alloc(), line + "\n")));
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading(ctx, session);
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      LOG.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    } else if (TlsGate.isTlsFailure(cause)) {
      server.failures().tlsFailed(ctx.channel().remoteAddress(), cause);
    } else if (cause instanceof OutOfMemoryError) {
      server.failures().outOfMemory(ctx.channel().remoteAddress(), cause);
    } else {
      LOG.warn("Connection {} failed; closing it", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }
}
