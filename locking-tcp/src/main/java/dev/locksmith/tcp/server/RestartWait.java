package dev.locksmith.tcp.server;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait of a server started before the leases of the run before it may have ended (its {@link
 * LeaseHorizon}): until then every lock counts as held, by a holder this run does not know, since
 * the holder may not have heard of the crash and take its lease for held until its deadline. An
 * ACQUIRE then waits (or is answered BUSY) as for a held lock, and the waiting ones are granted in
 * order when the wait is over. Core thread only; time is {@link System#nanoTime()}.
 */
final class RestartWait {
  private static final Logger LOG = LoggerFactory.getLogger(RestartWait.class);

  private final LockIndex index;
  private final WaitQueues waits;
  private final Leases leases;
  private final ServerMetrics metrics;
  private final long until;
  private boolean over;

  /**
   * Starts the wait, or records that there is none when {@code millis} is 0.
   *
   * @param millis how long the leases of the run before may still last
   */
  RestartWait(
      LockIndex index,
      WaitQueues waits,
      Leases leases,
      ScheduledExecutorService core,
      ServerMetrics metrics,
      long millis) {
    this.index = index;
    this.metrics = metrics;
    this.waits = waits;
    this.leases = leases;
    this.until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    this.over = millis <= 0;
    if (!over) {
      metrics.restartWaitEndNanos = until;
      try {
        core.schedule(this::end, millis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        over = true; // shutting down before it started
        metrics.restartWaitEndNanos = 0;
      }
    }
  }

  /**
   * The longest wait kept, whatever {@code maxRestartWait} says: about 27 years, short enough that
   * its end in {@link System#nanoTime()} terms never overflows.
   */
  private static final Duration LONGEST = Duration.ofDays(10_000);

  /**
   * How long the leases the run before this one granted may still last, at most {@code
   * maxRestartWait} ({@link LockServerBuilder#maxRestartWait}); logged when there is a wait.
   */
  static long millis(LeaseHorizon horizon, Duration maxRestartWait) {
    long left = horizon.inheritedWaitMillis();
    if (left == 0) {
      return 0;
    }
    long limit =
        maxRestartWait.compareTo(LONGEST) > 0 ? LONGEST.toMillis() : maxRestartWait.toMillis();
    if (left > limit) {
      LOG.warn(
          "The leases of the server's last run may last {} ms more, longer than maxRestartWait {};"
              + " granting locks after {} ms: a holder of that run that has not heard of its end"
              + " may still be running then",
          left,
          maxRestartWait,
          limit);
      return limit;
    }
    LOG.info(
        "The leases of the server's last run may last {} ms more (it did not end them all before"
            + " it stopped); every lock counts as held until then",
        left);
    return left;
  }

  /** Whether locks still count as held at {@code now}. */
  boolean holds(long now) {
    return !over && now - until < 0;
  }

  /** How long the wait has left at {@code now}, in milliseconds rounded up. */
  long leftMillis(long now) {
    return over ? 0 : Math.max(0, (until - now + 999_999) / 1_000_000);
  }

  /** Queues an ACQUIRE (with a wait) for a lock that no one holds or waits for yet. */
  void enqueue(Session session, Request.Acquire a, String token, long now) {
    LockEntry entry = new LockEntry(a.lockId());
    index.add(entry);
    waits.enqueue(entry, session, a, token, now);
    index.removeIfIdle(entry);
  }

  private void end() {
    over = true;
    metrics.restartWaitEndNanos = 0;
    long now = System.nanoTime();
    int locks = 0;
    // Every entry has waiters and none a holder: nothing was granted during the wait.
    for (LockEntry entry : index.entries()) {
      if (!entry.held) {
        leases.passOn(entry, now, now);
        locks++;
      }
    }
    LOG.info(
        "The leases of the server's run before this one have ended; granting locks ({} waited for)",
        locks);
  }
}
