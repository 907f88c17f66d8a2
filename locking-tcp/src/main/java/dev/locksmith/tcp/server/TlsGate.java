package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The first handler of a TLS server's connections: when the client's first byte opens a TLS
 * handshake it puts the TLS handler in its place; otherwise (a plain-text client, say a script with
 * {@code nc}) it answers in plain text that the server speaks TLS only, and closes, instead of
 * leaving the client to time out on a failed handshake.
 */
final class TlsGate extends ByteToMessageDecoder {
  /** The first byte of a TLS record carrying a handshake. */
  private static final int HANDSHAKE = 0x16;

  static final String REFUSAL =
      "* ERR TLS_REQUIRED this server speaks TLS only; connect with TLS (tcp://HOST:PORT?tls=true)\n"
          + "* BYE tls-required\n";

  private final SslContext ssl;

  TlsGate(SslContext ssl) {
    this.ssl = ssl;
  }

  /**
   * Whether a connection's failure is the client's TLS going wrong: bytes that are no TLS record,
   * or a handshake or record the TLS handler refused. Netty hands these on wrapped in a {@link
   * DecoderException}, which is no {@link java.io.IOException}.
   */
  static boolean isTlsFailure(Throwable cause) {
    return cause instanceof NotSslRecordException
        || cause instanceof DecoderException && cause.getCause() instanceof SSLException;
  }

  /** The failure in one line: what the TLS handler said, without Netty's wrapping. */
  static String describe(Throwable cause) {
    Throwable tls =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    return String.valueOf(tls);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!in.isReadable()) {
      return;
    }
    if (in.getUnsignedByte(in.readerIndex()) == HANDSHAKE) {
      ctx.pipeline().replace(this, "tls", ssl.newHandler(ctx.alloc()));
      return;
    }
    in.skipBytes(in.readableBytes());
    ctx.writeAndFlush(ByteBufUtil.writeAscii(ctx.alloc(), REFUSAL))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
