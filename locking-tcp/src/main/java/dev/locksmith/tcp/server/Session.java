package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One connection's state. The lease lists and the wait map belong to the server's core thread; the
 * authentication flag, error count and closing flags belong to the connection's event loop.
 *
 * <p>The leases the connection holds are kept in two intrusive lists threaded through the {@link
 * LockEntry} objects: the attached ones, released when the client ends the connection (see {@link
 * #endedByClient}), and the detached ones (shortened to a minimum hold), which stay held until
 * their end and only lose the connection they may be renewed or released over.
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

  /**
   * Set on the event loop once the server closes the connection at once (idle, line timeout), its
   * {@code BYE} written: no grant is made to its waits from then on (they are dropped); read on the
   * core thread.
   */
  volatile boolean closedByServer;

  /** The head of the last compact owner token seen, shared by its leases; core thread only. */
  @Nullable String lastTokenHead;

  /** Whether the connection may send lock requests; event loop only. */
  boolean authenticated;

  /** Consecutive rejected lines; event loop only. */
  int errors;

  /**
   * Set once QUIT, a wrong secret, too many errors or the end of the client's input will close the
   * connection; event loop only.
   */
  boolean closing;

  /**
   * Set once a wrong secret's delayed answer is scheduled: the connection keeps its place in {@link
   * Admission} until that answer, which gives it up, even if the client closes the connection
   * first; event loop only.
   */
  boolean admissionKeptForAnswer;

  /** Set when the client shut down its sending side (half-close); event loop only. */
  boolean inputShutdown;

  /**
   * Set when the client ended the connection itself: it sent QUIT or shut down its sending side
   * (which a client process does when it closes the connection or dies). Only then does the client
   * surely know the connection is gone, so only then are its leases of running work released at
   * once when it closes; after a reset or a close by the server they stay until their end. Event
   * loop only.
   */
  boolean endedByClient;

  /** Replies collected while the core thread answers a batch; core thread only. */
  private @Nullable StringBuilder outbox;

  private @Nullable List<LongConsumer> outboxListeners;
  private boolean closeAfterOutbox;

  /** This connection's requests queued or running on the core thread. */
  final AtomicInteger inFlight = new AtomicInteger();

  /** Told the bytes waiting for the socket after each write, and of replies without memory. */
  private final ServerRuntime server;

  Session(Channel channel, boolean authenticated, ServerRuntime server) {
    this.channel = channel;
    this.server = server;
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
    return !closed && !closedByServer && channel.isActive();
  }

  /**
   * Sends one line: into the batch when the core thread is answering a batch of this connection's
   * requests (then it is sent with the batch's other replies in one write), else at once. Core
   * thread only.
   */
  void send(String line) {
    StringBuilder batch = outbox;
    if (batch != null) {
      batch.append(line).append('\n');
    } else {
      sendNow(line);
    }
  }

  /** Sends one line at once; callable from any thread. */
  void sendNow(String line) {
    ByteBuf bytes = encode(line + "\n");
    if (bytes != null) {
      channel.writeAndFlush(bytes, channel.voidPromise());
      countOutbound();
    }
  }

  /**
   * {@code text} as a buffer to write, or null when no memory could be had for it (direct memory
   * used up). The connection is then closed, as one whose read cannot get a buffer, rather than
   * left with requests that are never answered; and the error never reaches the core's work, which
   * may be halfway through a hand-off or an expiry sweep.
   */
  private @Nullable ByteBuf encode(CharSequence text) {
    try {
      return ByteBufUtil.writeUtf8(channel.alloc(), text);
    } catch (OutOfMemoryError e) {
      server.failures().outOfMemory(this, e);
      try {
        // Not inline: on the connection's own loop that would release its leases inside this work.
        channel.eventLoop().execute(() -> channel.close());
      } catch (RejectedExecutionException shuttingDown) {
        // The loop is stopping, and closes the connection with it.
      }
      return null;
    }
  }

  private void countOutbound() {
    ChannelOutboundBuffer waiting = channel.unsafe().outboundBuffer();
    if (waiting != null) {
      server.peaks().outbound().record(waiting.totalPendingWriteBytes());
    }
  }

  /**
   * Sends one line and runs {@code flushed} with the time once it was handed to the socket. Core
   * thread only.
   */
  void send(String line, LongConsumer flushed) {
    StringBuilder batch = outbox;
    if (batch != null) {
      batch.append(line).append('\n');
      if (outboxListeners == null) {
        outboxListeners = new ArrayList<>(2);
      }
      outboxListeners.add(flushed);
      return;
    }
    ByteBuf bytes = encode(line + "\n");
    if (bytes != null) {
      channel.writeAndFlush(bytes).addListener(flushedAt(List.of(flushed)));
      countOutbound();
    }
  }

  private static GenericFutureListener<Future<? super Void>> flushedAt(List<LongConsumer> flushed) {
    return f -> {
      if (f.isSuccess()) {
        long now = System.nanoTime();
        for (LongConsumer consumer : flushed) {
          consumer.accept(now);
        }
      }
    };
  }

  /** Sends one line and closes the connection once it is flushed. Core thread only. */
  void sendAndClose(String line) {
    StringBuilder batch = outbox;
    if (batch != null) {
      batch.append(line).append('\n');
      closeAfterOutbox = true;
      return;
    }
    ByteBuf bytes = encode(line + "\n");
    if (bytes != null) {
      CloseAfterWrite.close(channel.writeAndFlush(bytes));
    }
  }

  /** Closes the connection once everything written before is flushed. Core thread only. */
  void closeAfterFlush() {
    if (outbox != null) {
      closeAfterOutbox = true;
      return;
    }
    CloseAfterWrite.close(channel.writeAndFlush(Unpooled.EMPTY_BUFFER));
  }

  /** Starts collecting this connection's replies into one write. Core thread only. */
  void beginBatch() {
    outbox = new StringBuilder(64);
  }

  /** Writes the replies collected since {@link #beginBatch()} at once. Core thread only. */
  void endBatch() {
    StringBuilder batch = outbox;
    List<LongConsumer> listeners = outboxListeners;
    boolean close = closeAfterOutbox;
    outbox = null;
    outboxListeners = null;
    closeAfterOutbox = false;
    if (batch == null || batch.length() == 0 && !close) {
      return;
    }
    ByteBuf bytes = batch.length() == 0 ? Unpooled.EMPTY_BUFFER : encode(batch);
    if (bytes == null) {
      return;
    }
    if (listeners == null && !close) {
      channel.writeAndFlush(bytes, channel.voidPromise());
      countOutbound();
      return;
    }
    ChannelFuture written = channel.writeAndFlush(bytes);
    countOutbound();
    if (listeners != null) {
      written.addListener(flushedAt(listeners));
    }
    if (close) {
      CloseAfterWrite.close(written);
    }
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
