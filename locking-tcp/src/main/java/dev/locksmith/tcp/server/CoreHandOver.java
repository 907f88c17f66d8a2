package dev.locksmith.tcp.server;

import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's requests on their way to the core thread: the work read during one read of the
 * socket is handed over as one task, which answers it into one write of the connection's replies,
 * and every item counts in the connection's requests in flight until the core has run it. When the
 * count drains to {@link ServerHandler#RESUME_AT}, the event loop is told to resume reading. Event
 * loop only, but for the task on the core thread.
 */
final class CoreHandOver {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandler.class);

  private final ServerRuntime server;
  private final BiConsumer<ChannelHandlerContext, Session> resume;

  /**
   * Work read but not yet handed to the core thread, and the refusal to send for each if the core
   * no longer takes work; handed over as one task at the end of each read.
   */
  private final ArrayList<Runnable> pendingWork = new ArrayList<>();

  private final ArrayList<@Nullable String> pendingRefusals = new ArrayList<>();

  /**
   * @param resume run on the event loop once the requests in flight have drained so far that reads
   *     may resume
   */
  CoreHandOver(ServerRuntime server, BiConsumer<ChannelHandlerContext, Session> resume) {
    this.server = server;
    this.resume = resume;
  }

  /**
   * Adds {@code work} for the core thread, counted in the connection's requests in flight; it is
   * handed over with the rest of the read. When the core no longer takes work, {@code refusal} (if
   * any) is sent instead.
   */
  void enqueue(Session current, Runnable work, @Nullable String refusal) {
    server.peaks().inFlight().record(current.inFlight.incrementAndGet());
    pendingWork.add(work);
    pendingRefusals.add(refusal);
  }

  /**
   * Runs {@code work} on the core thread after the work enqueued before it, counted in the
   * connection's requests in flight; when the core no longer takes work, sends {@code refusal}
   * instead (if any).
   *
   * @return whether the core took the work
   */
  boolean submit(
      ChannelHandlerContext ctx, Session current, Runnable work, @Nullable String refusal) {
    enqueue(current, work, refusal);
    return handOver(ctx, current);
  }

  /**
   * Hands the enqueued work to the core thread as one task, which answers it into one write of the
   * connection's replies.
   *
   * @return whether the core took it (also when there was none)
   */
  boolean handOver(ChannelHandlerContext ctx, Session current) {
    int n = pendingWork.size();
    if (n == 0) {
      return true;
    }
    Runnable[] work = pendingWork.toArray(new Runnable[0]);
    pendingWork.clear();
    boolean queued =
        server.onCore(
            () -> {
              current.beginBatch();
              try {
                for (Runnable item : work) {
                  try {
                    item.run();
                  } catch (RuntimeException e) {
                    LOG.error("Lock server core task failed", e);
                  }
                }
              } finally {
                current.endBatch();
                completed(ctx, current, n);
              }
            });
    if (!queued) {
      current.inFlight.addAndGet(-n);
      for (String refusal : pendingRefusals) {
        if (refusal != null) {
          current.sendNow(refusal);
        }
      }
    }
    pendingRefusals.clear();
    return queued;
  }

  /** On the core thread: {@code n} requests done; wakes the event loop when reads may resume. */
  private void completed(ChannelHandlerContext ctx, Session current, int n) {
    int after = current.inFlight.addAndGet(-n);
    if (after <= ServerHandler.RESUME_AT && after + n > ServerHandler.RESUME_AT) {
      try {
        ctx.executor().execute(() -> resume.accept(ctx, current));
      } catch (RejectedExecutionException e) {
        // The event loop is shutting down, and the connection with it.
      }
    }
  }
}
