package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's protocol front end, on its event loop: decodes and parses lines, enforces
 * authentication and the error limit, answers PING, AUTH and QUIT, and hands lock requests to the
 * core thread. Reads pause while the connection's outbound buffer is full, so a client that does
 * not read its replies cannot grow the server's memory.
 */
final class ServerHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandler.class);

  private final LockServer server;
  private final ServerSettings settings;
  private final RequestParser parser;
  private @Nullable Session session;

  ServerHandler(LockServer server, ServerSettings settings, RequestParser parser) {
    this.server = server;
    this.settings = settings;
    this.parser = parser;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Session created = new Session(ctx.channel(), settings.secret() == null);
    if (!server.admit(ctx.channel())) {
      created.send("* BYE too-many-connections");
      ctx.close();
      return;
    }
    session = created;
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Session closed = session;
    if (closed != null) {
      session = null;
      server.onCore(() -> server.table().sessionClosed(closed));
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      Session current = session;
      if (current != null && ctx.channel().isActive()) {
        onLine(ctx, current, frame);
      }
    } finally {
      frame.release();
    }
  }

  private void onLine(ChannelHandlerContext ctx, Session current, ByteBuf frame) {
    Request request;
    try {
      String line = decode(frame);
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1);
      }
      request = parser.parse(line);
    } catch (ProtocolException e) {
      reject(ctx, current, e);
      return;
    }
    if (request instanceof Request.Quit) {
      current.send(request.id() + " BYE");
      ctx.close();
      return;
    }
    if (request instanceof Request.Auth auth) {
      authenticate(ctx, current, auth);
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
    if (request instanceof Request.Ping) {
      current.send(request.id() + " PONG");
      return;
    }
    if (!server.onCore(() -> server.table().handle(current, request))) {
      current.send(request.id() + " ERR SHUTTING_DOWN the server is stopping");
    }
  }

  private void authenticate(ChannelHandlerContext ctx, Session current, Request.Auth auth) {
    Secret secret = settings.secret();
    if (secret == null || secret.matches(auth.secret())) {
      current.authenticated = true;
      current.errors = 0;
      current.send(auth.id() + " OK");
      return;
    }
    LOG.warn("Connection {} sent a wrong secret; closing it", current);
    ctx.writeAndFlush(
            io.netty.buffer.ByteBufUtil.writeUtf8(
                ctx.alloc(), auth.id() + " ERR AUTH wrong secret; closing the connection\n"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private void reject(ChannelHandlerContext ctx, Session current, ProtocolException e) {
    current.send(e.replyLine());
    if (++current.errors >= settings.maxErrors()) {
      LOG.info("Connection {} sent {} bad lines in a row; closing it", current, current.errors);
      goodbye(ctx, current, "too-many-errors");
    }
  }

  private static void goodbye(ChannelHandlerContext ctx, Session current, String reason) {
    ctx.writeAndFlush(io.netty.buffer.ByteBufUtil.writeUtf8(ctx.alloc(), "* BYE " + reason + "\n"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private static String decode(ByteBuf frame) throws ProtocolException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(frame.nioBuffer())
          .toString();
    } catch (CharacterCodingException e) {
      throw new ProtocolException(null, "SYNTAX", "line is not valid UTF-8");
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    Session current = session;
    if (evt instanceof IdleStateEvent && current != null) {
      LOG.debug("Connection {} idle for {}; closing it", current, settings.idleTimeout());
      goodbye(ctx, current, "idle");
    } else if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
      LOG.debug(
          "TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), handshake.cause());
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Session current = session;
    if (cause instanceof TooLongFrameException && current != null) {
      reject(
          ctx,
          current,
          new ProtocolException(
              null,
              "LINE_TOO_LONG",
              "line longer than " + settings.maxLineLength() + " bytes; it is discarded"));
      return;
    }
    if (cause instanceof IOException) {
      LOG.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    } else {
      LOG.warn("Connection {} failed; closing it", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }
}
