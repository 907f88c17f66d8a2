package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
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
 */
final class RequestLineDecoder extends ByteToMessageDecoder {
  /** A request id is at most 32 characters; one more shows where it ends. */
  private static final int ID_PEEK = 33;

  private final int maxLength;
  private boolean discarding;

  /** How many bytes from the reader index are known to hold no newline. */
  private int scanned;

  RequestLineDecoder(int maxLength) {
    this.maxLength = maxLength;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
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

  private ProtocolException tooLong(ByteBuf in) {
    return new ProtocolException(
        requestId(in),
        "LINE_TOO_LONG",
        "line longer than " + maxLength + " bytes; it is discarded");
  }

  /** The request id the line starts with, if valid. */
  private static @Nullable String requestId(ByteBuf in) {
    int peek = Math.min(ID_PEEK, in.readableBytes());
    String head = in.toString(in.readerIndex(), peek, StandardCharsets.US_ASCII);
    int space = head.indexOf(' ');
    String id = space < 0 ? head : head.substring(0, space);
    return LineWords.isId(id) ? id : null;
  }
}
