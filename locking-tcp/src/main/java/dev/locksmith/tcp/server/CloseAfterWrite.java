package dev.locksmith.tcp.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection once what was last written to it is flushed, and at the latest {@link
 * #GRACE_MILLIS} later: a client that stopped reading fills the socket buffers, so a last line to
 * it ({@code * BYE ...}) may never be flushed, and its connection, with its leases, must not
 * outlive its close.
 */
final class CloseAfterWrite {
  /** How long a closing line may take to be flushed: 2 s. */
  static final long GRACE_MILLIS = 2_000;

  private CloseAfterWrite() {}

  static void close(ChannelFuture written) {
    Channel channel = written.channel();
    written.addListener(ChannelFutureListener.CLOSE);
    if (!written.isDone()) {
      channel.eventLoop().schedule(() -> channel.close(), GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }
}
