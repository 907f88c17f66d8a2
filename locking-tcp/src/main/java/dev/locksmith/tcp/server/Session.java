package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection's state. The lease and wait maps belong to the server's core thread; the
 * authentication flag, error count and closing flag belong to the connection's event loop.
 */
final class Session {
  final Channel channel;
  final String remote;

  /** Held leases by lock id; core thread only. */
  final Map<String, LockTable.Lease> leases = new HashMap<>();

  /** Waiting ACQUIREs by request id; core thread only. */
  final Map<String, LockTable.Waiter> waits = new HashMap<>();

  /** Set when the connection closed; core thread only. */
  boolean closed;

  /** Event loop only. */
  boolean authenticated;

  /** Consecutive rejected lines; event loop only. */
  int errors;

  /**
   * Set once QUIT, a wrong secret or too many errors will close the connection; event loop only.
   */
  boolean closing;

  /** This connection's tasks queued or running on the core thread. */
  final AtomicInteger inFlight = new AtomicInteger();

  Session(Channel channel, boolean authenticated) {
    this.channel = channel;
    this.remote = String.valueOf(channel.remoteAddress());
    this.authenticated = authenticated;
  }

  /** Whether a grant could still reach this connection. */
  boolean live() {
    return !closed && channel.isActive();
  }

  /** Sends one line; callable from any thread. */
  void send(String line) {
    channel.writeAndFlush(
        ByteBufUtil.writeUtf8(channel.alloc(), line + "\n"), channel.voidPromise());
  }

  /** Sends one line and closes the connection once it is flushed; callable from any thread. */
  void sendAndClose(String line) {
    channel
        .writeAndFlush(ByteBufUtil.writeUtf8(channel.alloc(), line + "\n"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public String toString() {
    return remote;
  }
}
