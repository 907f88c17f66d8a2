package dev.locksmith.tcp;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The requests in flight on one {@link ClientConnection}: each is written as {@code <id> <body>}
 * and its reply, matched by id in any order, completes its future. A request fails with a {@link
 * ConnectionLostException} when it cannot be written or the connection closes first, and with a
 * {@link TimeoutException} when {@linkplain #expireAfter its time} runs out. Thread-safe.
 */
final class PendingRequests {
  /** A request in flight. */
  record Pending(String id, CompletableFuture<Reply> reply, long sentNanos) {}

  private final String description;
  private final AtomicLong ids;
  private final Supplier<@Nullable Channel> openChannel;
  private final Supplier<@Nullable String> closeReason;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final AnnouncedDelays delays = new AnnouncedDelays();
  private final LongAdder writes = new LongAdder();

  /**
   * @param description the server as errors name it
   * @param ids the request ids of the provider, shared by its connections
   * @param openChannel the connection's channel, or null once it is closed (or not yet open)
   * @param closeReason why the connection closed, if known, for the failures it causes
   */
  PendingRequests(
      String description,
      AtomicLong ids,
      Supplier<@Nullable Channel> openChannel,
      Supplier<@Nullable String> closeReason) {
    this.description = description;
    this.ids = ids;
    this.openChannel = openChannel;
    this.closeReason = closeReason;
  }

  /** The next request id, in base 36. */
  String nextId() {
    return Long.toString(ids.incrementAndGet(), 36);
  }

  /** Sends {@code <id> <body>} and returns the pending reply. */
  Pending send(String body) {
    return sendAll(List.of(body)).get(0);
  }

  /**
   * Sends every request of {@code bodies} in one write and one flush (pipelined: the server answers
   * them in order) and returns their pending replies in the same order, all with the same send
   * time.
   */
  List<Pending> sendAll(List<String> bodies) {
    long sentNanos = System.nanoTime();
    List<Pending> sent = new ArrayList<>(bodies.size());
    StringBuilder lines = new StringBuilder(bodies.size() * 64);
    for (String body : bodies) {
      Pending p = new Pending(nextId(), new CompletableFuture<>(), sentNanos);
      pending.put(p.id, p);
      sent.add(p);
      lines.append(p.id).append(' ').append(body).append('\n');
    }
    // Read after the requests are recorded: a close from now on fails them, here or there.
    Channel ch = openChannel.get();
    if (ch == null) {
      for (Pending p : sent) {
        fail(p);
      }
      return sent;
    }
    if (!sent.isEmpty()) {
      writes.increment();
      ch.writeAndFlush(ByteBufUtil.writeUtf8(ch.alloc(), lines))
          .addListener(f -> failOnWriteError(f, sent));
    }
    return sent;
  }

  /** Writes {@code <id> <body>} with no reply awaited, as QUIT is sent. */
  void sendUnanswered(Channel ch, String body) {
    writes.increment();
    ch.writeAndFlush(ByteBufUtil.writeUtf8(ch.alloc(), nextId() + " " + body + "\n"));
  }

  private void failOnWriteError(Future<?> write, List<Pending> sent) {
    if (!write.isSuccess()) {
      ConnectionLostException e = lost(write.cause());
      for (Pending p : sent) {
        pending.remove(p.id);
        p.reply.completeExceptionally(e);
      }
    }
  }

  /**
   * Fails {@code p} with a {@link TimeoutException} (and forgets it, so that a late reply is
   * dropped) unless its reply comes within {@code nanos}; the timer runs on the connection's I/O
   * thread and is cancelled by the reply. Does nothing when the request is already done.
   */
  void expireAfter(@Nullable Channel ch, Pending p, long nanos) {
    if (ch == null || p.reply.isDone()) {
      return;
    }
    ScheduledFuture<?> timer;
    try {
      timer =
          ch.eventLoop()
              .schedule(
                  () -> {
                    if (pending.remove(p.id, p)) {
                      delays.forget(p.id);
                      p.reply.completeExceptionally(
                          new TimeoutException(
                              "no reply to request " + p.id + " from " + description));
                    }
                  },
                  nanos,
                  TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // No I/O thread any more: the connection is closed, and its pending requests failed with it.
      return;
    }
    p.reply.whenComplete((reply, failure) -> timer.cancel(false));
  }

  /**
   * Completes the request {@code reply} answers.
   *
   * @return false when no request waits for it (it timed out, or the id is unknown)
   */
  boolean complete(Reply reply) {
    Pending p = pending.remove(reply.id());
    if (p == null) {
      return false;
    }
    delays.forget(p.id);
    p.reply.complete(reply);
    return true;
  }

  /**
   * Notes the push line {@code reply} if it is a well-formed {@code DELAYED} for a request in
   * flight.
   *
   * @return whether it was noted
   */
  boolean noteDelay(Reply reply) {
    return reply.is("DELAYED") && delays.note(reply, pending::containsKey);
  }

  /**
   * When the server said the answer to {@code p} would come ({@code * DELAYED}), on {@link
   * System#nanoTime()}; empty if it did not.
   */
  OptionalLong answerDueAt(Pending p) {
    return delays.dueAt(p.id);
  }

  /** How many writes (each with its flush) have been made; for tests. */
  long writes() {
    return writes.sum();
  }

  /** Fails every request in flight: the connection has closed. */
  void failAll() {
    for (Pending p : new ArrayList<>(pending.values())) {
      fail(p);
    }
  }

  private void fail(Pending p) {
    pending.remove(p.id);
    delays.forget(p.id);
    p.reply.completeExceptionally(lost(null));
  }

  private ConnectionLostException lost(@Nullable Throwable cause) {
    String reason = closeReason.get();
    ConnectionLostException e =
        new ConnectionLostException(
            "connection to " + description + " lost" + (reason == null ? "" : ": " + reason));
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
