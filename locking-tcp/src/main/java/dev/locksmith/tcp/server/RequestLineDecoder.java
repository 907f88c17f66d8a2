package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Splits the input into request lines ({@link ByteBuf}s without their {@code \n} or {@code \r\n}),
 * as Netty's {@code LineBasedFrameDecoder} does, failing fast; a line longer than the limit becomes
 * a {@link ProtocolException} {@code LINE_TOO_LONG} that names the line's request id when it starts
 * with a valid one, so that the client can fail that request alone, and the rest of the line is
 * discarded.
 *
 * <p>The protocol handler {@linkplain #pause() pauses} it while the connection has no room for more
 * requests or for their replies: the bytes read stay here, one buffer, rather than becoming
 * thousands of line slices that each keep that buffer (a client pipelining short requests far ahead
 * of its answers); no further read is asked for meanwhile. {@link #resume()} splits them on. The
 * end of the client's input is passed on only once every whole line before it was; it ends a last
 * line that has no newline.
 */
final class RequestLineDecoder extends ByteToMessageDecoder {
  /** A request id is at most 32 characters; one more shows where it ends. */
  private static final int ID_PEEK = 33;

  private final int maxLength;
  private boolean discarding;

  /** How many bytes from the reader index are known to hold no newline. */
  private int scanned;

  // Event loop only, as every field here.
  private boolean paused;
  // Inside channelRead: a line handed on from here may lead to a pause and a resume at once.
  private boolean reading;
  // The client's input ended while paused: passed on once the lines before it were.
  private boolean inputEndHeld;
  // The client shut its sending side down: what follows the last newline is a line too.
  private boolean inputEnded;
  private @Nullable ChannelHandlerContext context;

  RequestLineDecoder(int maxLength) {
    this.maxLength = maxLength;
    setCumulator(COMPACTING);
  }

  /**
   * Netty's merge, after moving the bytes not yet split to the front of the buffer when a read
   * would not fit behind them: without it a line near the limit that arrives over many reads
   * doubled the buffer until it was four times the limit (1 MiB for the default 256 KiB lines).
   */
  private static final Cumulator COMPACTING =
      (alloc, cumulation, in) -> {
        if (in.readableBytes() > cumulation.writableBytes()
            && cumulation.readerIndex() > 0
            && cumulation.refCnt() == 1
            && !cumulation.isReadOnly()) {
          cumulation.discardReadBytes();
        }
        return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
      };

  /** The capacity of the buffer holding what was read and not yet split (for tests). */
  int bufferCapacity() {
    return internalBuffer().capacity();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    context = ctx;
  }

  /** Stops splitting lines (and asking for reads to finish one) until {@link #resume()}. */
  void pause() {
    paused = true;
  }

  /**
   * Splits the lines read while paused and hands them on, until paused again; then, if every whole
   * line was handed on, passes on an end of input held back. Called while this decoder hands on a
   * line (a core batch run inline on the event loop, whose write changed the writability), it only
   * lets the split under way go on: splitting here too would free that split's buffer under it.
   *
   * @return whether it was paused
   */
  boolean resume() {
    ChannelHandlerContext ctx = context;
    if (!paused || ctx == null) {
      return false;
    }
    paused = false;
    if (reading) {
      // The outer channelRead splits on; if it was itself a resume, that passes on a held end.
      return true;
    }
    try {
      channelRead(ctx, Unpooled.EMPTY_BUFFER);
      if (inputEndHeld && !paused) {
        inputEndHeld = false;
        super.userEventTriggered(ctx, ChannelInputShutdownEvent.INSTANCE);
      }
    } catch (Exception e) {
      ctx.fireExceptionCaught(e);
    }
    return true;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    boolean outer = !reading;
    reading = true;
    try {
      super.channelRead(ctx, msg);
    } finally {
      if (outer) {
        reading = false;
      }
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputEnded = true;
    }
    if (evt instanceof ChannelInputShutdownEvent && paused) {
      inputEndHeld = true;
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (paused) {
      // The decoder would ask for another read when this one split no line.
      ctx.fireChannelReadComplete();
      return;
    }
    super.channelReadComplete(ctx);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (paused) {
      return;
    }
    int start = in.readerIndex();
    int eol = in.indexOf(start + scanned, in.writerIndex(), (byte) '\n');
    if (discarding) {
      if (eol < 0) {
        in.skipBytes(in.readableBytes());
      } else {
        in.readerIndex(eol + 1);
        discarding = false;
      }
      return;
    }
    if (eol < 0) {
      scanned = in.readableBytes();
      boolean endsInReturn = in.getByte(in.writerIndex() - 1) == '\r';
      if (scanned > maxLength + (endsInReturn ? 1 : 0)) {
        out.add(tooLong(in));
        in.skipBytes(in.readableBytes());
        discarding = true;
        scanned = 0;
      }
      return;
    }
    scanned = 0;
    int length = eol - start;
    if (length > 0 && in.getByte(eol - 1) == '\r') {
      length--;
    }
    if (length > maxLength) {
      out.add(tooLong(in));
    } else {
      out.add(in.retainedSlice(start, length));
    }
    in.readerIndex(eol + 1);
  }

  /**
   * At the end of the client's input, the bytes after the last newline are its last line ({@code
   * printf '1 PING' | nc -N} sends no newline); a connection that just closed leaves them, since no
   * answer could reach it.
   */
  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!in.isReadable()) {
      return;
    }
    decode(ctx, in, out);
    if (!inputEnded || paused || discarding || !in.isReadable()) {
      return;
    }
    int length = in.readableBytes();
    if (in.getByte(in.writerIndex() - 1) == '\r') {
      length--;
    }
    out.add(length > maxLength ? tooLong(in) : in.retainedSlice(in.readerIndex(), length));
    in.skipBytes(in.readableBytes());
    scanned = 0;
  }

  private ProtocolException tooLong(ByteBuf in) {
    return new ProtocolException(
        requestId(in),
        "LINE_TOO_LONG",
        "line longer than " + maxLength + " bytes; it is discarded");
  }

  /** The request id the line in {@code in} starts with, if valid. */
  static @Nullable String requestId(ByteBuf in) {
    int peek = Math.min(ID_PEEK, in.readableBytes());
    return LineWords.leadingId(in.toString(in.readerIndex(), peek, StandardCharsets.US_ASCII));
  }
}
