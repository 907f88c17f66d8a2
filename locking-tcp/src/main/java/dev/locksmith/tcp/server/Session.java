package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.Map;

/**
 * One connection's state. The lease and wait maps belong to the server's core thread; the
 * authentication flag and error count belong to the connection's event loop.
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

  @Override
  public String toString() {
    return remote;
  }
}
