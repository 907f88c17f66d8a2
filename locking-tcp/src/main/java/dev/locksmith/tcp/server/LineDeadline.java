package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ByteProcessor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes a connection that started a line and has not finished it within the line timeout: a client
 * trickling a byte at a time (slowloris) is never idle, so the idle timeout alone would never close
 * it. Sits before the line decoder and looks only for the last newline of each read; one timer per
 * connection, set only while a line is incomplete. Time the server spends not reading from the
 * connection (it paused reads because the client pipelines faster than it is answered) does not
 * count against the client. When the deadline passes it fires {@link #EXCEEDED} down the pipeline,
 * and the protocol handler says {@code * BYE line-timeout} and closes.
 *
 * <p>With TLS the bytes of a line arrive in records, and a client could trickle the bytes of a
 * record that never completes, so that nothing decrypted ever reaches this handler: the {@link
 * #rawSide()} handler, placed before the TLS handler, starts the clock at the first raw byte after
 * a finished line (or the handshake) too.
 */
final class LineDeadline extends ChannelInboundHandlerAdapter {
  /** The user event fired when a line took too long. */
  static final Object EXCEEDED = new Object();

  private final long timeoutNanos;

  /** When the incomplete line began, on the nanoTime clock; valid while {@link #partial}. */
  private long partialSince;

  private boolean partial;
  private @Nullable ScheduledFuture<?> timer;
  private @Nullable ChannelHandlerContext context;

  LineDeadline(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    context = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf buf && buf.isReadable()) {
      int lastNewline = buf.forEachByteDesc(ByteProcessor.FIND_LF);
      if (lastNewline == buf.writerIndex() - 1) {
        partial = false;
      } else if (lastNewline >= 0 || !partial) {
        started(ctx);
      }
    }
    ctx.fireChannelRead(msg);
  }

  /** A line (or, before TLS, a record) has begun now. */
  private void started(ChannelHandlerContext ctx) {
    partial = true;
    partialSince = System.nanoTime();
    arm(ctx, timeoutNanos);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof ChannelInputShutdownEvent || evt instanceof SslHandshakeCompletionEvent) {
      // After the end of input the rest of a line will never come; after the handshake its
      // records are done with and nothing is pending.
      partial = false;
    }
    super.userEventTriggered(ctx, evt);
  }

  /**
   * A handler for the head of a TLS connection's pipeline, before the TLS handler: raw bytes that
   * arrive while no line is pending start the clock, so a record trickled without end is caught.
   */
  ChannelInboundHandlerAdapter rawSide() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ChannelHandlerContext lineSide = context;
        if (!partial && lineSide != null && msg instanceof ByteBuf buf && buf.isReadable()) {
          started(lineSide);
        }
        ctx.fireChannelRead(msg);
      }
    };
  }

  private void arm(ChannelHandlerContext ctx, long delayNanos) {
    if (timer == null) {
      timer = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void check(ChannelHandlerContext ctx) {
    timer = null;
    if (!partial || !ctx.channel().isActive()) {
      return;
    }
    long now = System.nanoTime();
    if (!ctx.channel().config().isAutoRead()) {
      // The server is not reading: the rest of the line may be waiting in the socket.
      partialSince = now;
      arm(ctx, timeoutNanos);
      return;
    }
    long left = partialSince + timeoutNanos - now;
    if (left > 0) {
      arm(ctx, left);
    } else {
      partial = false;
      ctx.fireUserEventTriggered(EXCEEDED);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ScheduledFuture<?> pending = timer;
    if (pending != null) {
      pending.cancel(false);
      timer = null;
    }
    super.channelInactive(ctx);
  }
}
