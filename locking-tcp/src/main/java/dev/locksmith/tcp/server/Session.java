package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One connection's state. The lease lists and the wait map belong to the server's core thread; the
 * authentication flag, error count and closing flags belong to the connection's event loop.
 *
 * <p>The leases the connection holds are kept in two intrusive lists threaded through the {@link
 * LockEntry} objects: the attached ones, released when the connection closes, and the detached ones
 * (shortened to a minimum hold), which stay held until their end and only lose the connection they
 * may be renewed or released over.
 */
final class Session {
  final Channel channel;
  final String remote;

  /** The client's address, for the per-address limits; null for a non-IP channel. */
  final @Nullable InetAddress address;

  /** Head of the list of attached leases; core thread only. */
  @Nullable LockEntry attached;

  /** How many leases are in the attached list; core thread only. */
  int attachedCount;

  /** Head of the list of detached leases this connection acquired; core thread only. */
  @Nullable LockEntry detached;

  /** Waiting ACQUIREs by request id; core thread only. */
  final Map<String, Waiter> waits = new HashMap<>(4);

  /** Set when the connection closed; core thread only. */
  boolean closed;

  /** The head of the last compact owner token seen, shared by its leases; core thread only. */
  @Nullable String lastTokenHead;

  /** Event loop only (set on the core thread before the connection is handed on). */
  boolean authenticated;

  /** Consecutive rejected lines; event loop only. */
  int errors;

  /**
   * Set once QUIT, a wrong secret, too many errors or the end of the client's input will close the
   * connection; event loop only.
   */
  boolean closing;

  /** Set when the client shut down its sending side (half-close); event loop only. */
  boolean inputShutdown;

  /** This connection's tasks queued or running on the core thread. */
  final AtomicInteger inFlight = new AtomicInteger();

  Session(Channel channel, boolean authenticated) {
    this.channel = channel;
    SocketAddress remoteAddress = channel.remoteAddress();
    this.remote = String.valueOf(remoteAddress);
    this.address =
        remoteAddress instanceof InetSocketAddress inet && inet.getAddress() != null
            ? inet.getAddress()
            : null;
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

  /**
   * Sends one line and runs {@code flushed} with the time once it was handed to the socket.
   * Callable from any thread.
   */
  void send(String line, java.util.function.LongConsumer flushed) {
    channel
        .writeAndFlush(ByteBufUtil.writeUtf8(channel.alloc(), line + "\n"))
        .addListener(
            f -> {
              if (f.isSuccess()) {
                flushed.accept(System.nanoTime());
              }
            });
  }

  /** Sends one line and closes the connection once it is flushed; callable from any thread. */
  void sendAndClose(String line) {
    channel
        .writeAndFlush(ByteBufUtil.writeUtf8(channel.alloc(), line + "\n"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /** Closes the connection once everything written before is flushed; callable from any thread. */
  void closeAfterFlush() {
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** Adds a lease to the attached or detached list, as {@code entry.detached} says; core only. */
  void link(LockEntry entry) {
    LockEntry head = entry.detached ? detached : attached;
    entry.prev = null;
    entry.next = head;
    if (head != null) {
      head.prev = entry;
    }
    if (entry.detached) {
      detached = entry;
    } else {
      attached = entry;
      attachedCount++;
    }
  }

  /** Takes a lease out of the list it is in (by {@code entry.detached}); core only. */
  void unlink(LockEntry entry) {
    LockEntry prev = entry.prev;
    LockEntry next = entry.next;
    if (next != null) {
      next.prev = prev;
    }
    if (prev != null) {
      prev.next = next;
    } else if (entry.detached) {
      detached = next;
    } else {
      attached = next;
    }
    if (!entry.detached) {
      attachedCount--;
    }
    entry.prev = null;
    entry.next = null;
  }

  @Override
  public String toString() {
    return remote;
  }
}
