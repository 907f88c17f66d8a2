package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
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
 */
final class LineDeadline extends ChannelInboundHandlerAdapter {
  /** The user event fired when a line took too long. */
  static final Object EXCEEDED = new Object();

  private final long timeoutNanos;

  /** When the incomplete line began, on the nanoTime clock; valid while {@link #partial}. */
  private long partialSince;

  private boolean partial;
  private @Nullable ScheduledFuture<?> timer;

  LineDeadline(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf buf && buf.isReadable()) {
      int lastNewline = buf.forEachByteDesc(ByteProcessor.FIND_LF);
      if (lastNewline == buf.writerIndex() - 1) {
        partial = false;
      } else if (lastNewline >= 0 || !partial) {
        partial = true;
        partialSince = System.nanoTime();
        arm(ctx, timeoutNanos);
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof ChannelInputShutdownEvent) {
      partial = false; // the rest of that line will never come; nothing more to wait for
    }
    super.userEventTriggered(ctx, evt);
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
