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
import org.jspecify.annotations.Nullable;

/**
 * The first handler of every connection, which checks that the client speaks what the server does.
 * On a TLS server: when the client's first byte opens a TLS handshake it puts the TLS handler in
 * its place; otherwise (a plain-text client, say a script with {@code nc}) it answers in plain text
 * that the server speaks TLS only, and closes, instead of leaving the client to time out on a
 * failed handshake. On a plain server: a client that opens a TLS handshake (a URL with {@code
 * tls=true}) is told in plain text that the server does not speak TLS, which its TLS handler
 * reports as no TLS record at once, rather than its handshake waiting for an answer that never
 * comes; any other first byte hands the connection on to the protocol.
 */
final class TlsGate extends ByteToMessageDecoder {
  /** The first byte of a TLS record carrying a handshake. */
  private static final int HANDSHAKE = 0x16;

  static final String REFUSAL =
      "* ERR TLS_REQUIRED this server speaks TLS only; connect with TLS (tcp://HOST:PORT?tls=true)\n"
          + "* BYE tls-required\n";

  static final String PLAIN_ONLY =
      "* ERR TLS_UNSUPPORTED this server does not speak TLS; connect without tls=true\n"
          + "* BYE tls-unsupported\n";

  private final @Nullable SslContext ssl;

  /** A gate for a TLS server with {@code ssl}, or for a plain server when {@code null}. */
  TlsGate(@Nullable SslContext ssl) {
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
    boolean handshake = in.getUnsignedByte(in.readerIndex()) == HANDSHAKE;
    if (handshake && ssl != null) {
      ctx.pipeline().replace(this, "tls", ssl.newHandler(ctx.alloc()));
      return;
    }
    if (!handshake && ssl == null) {
      // The bytes read so far go on to the next handler as this one leaves.
      ctx.pipeline().remove(this);
      return;
    }
    in.skipBytes(in.readableBytes());
    ctx.writeAndFlush(ByteBufUtil.writeAscii(ctx.alloc(), handshake ? PLAIN_ONLY : REFUSAL))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
