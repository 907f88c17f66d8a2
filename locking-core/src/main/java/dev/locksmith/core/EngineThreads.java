package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's own threads, all daemons, each pool bounded: the keeper's sweeper (one thread, which
 * also runs delayed tasks), the background pool, the completion thread, the threads that take locks
 * for reactive results and, unless the application gave an executor, the renewal pool. Closing
 * stops them all and may wait for their tasks to end.
 */
final class EngineThreads {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final AtomicInteger COUNT = new AtomicInteger();
  // Set on the threads of every engine: a close on one of them does not wait for them.
  private static final ThreadLocal<Boolean> OWN_THREAD = ThreadLocal.withInitial(() -> false);

  /** The name prefix of the renewal threads. */
  static final String RENEWAL_PREFIX = "locksmith-renewal-";

  /**
   * The most threads of the engine's background pool, whatever the load: its tasks beyond that
   * queue. Its tasks are outage probes (at most one per provider), the start-up checks (one per
   * provider) and unused grants' releases; none waits for another, so a queued task only waits for
   * a running one's provider call to end, and cannot deadlock.
   */
  static final int BACKGROUND_THREADS = 4;

  /** The name prefix of the background threads. */
  static final String BACKGROUND_PREFIX = "locksmith-background-";

  /**
   * The most threads that take locks for reactive results at once: a waiting subscription blocks
   * one, as a blocking call blocks its caller's thread, and those beyond queue until one is free.
   */
  static final int REACTIVE_ACQUIRE_THREADS = 256;

  /** The name prefix of the threads that take locks for reactive results. */
  static final String REACTIVE_ACQUIRE_PREFIX = "locksmith-reactive-acquire-";

  private final ScheduledThreadPoolExecutor sweeper =
      new ScheduledThreadPoolExecutor(1, daemons("locksmith-lease-keeper-"));
  // Work off the callers' threads that is not a renewal: outage probes and releases handed over so
  // that a caller need not wait for them. Never the renewal executor an application gave.
  private final ThreadPoolExecutor background = pool(BACKGROUND_THREADS, BACKGROUND_PREFIX);
  // Where the answers of releases that completed later are handled, so that listeners never run
  // on a provider's I/O threads: one thread, in the order the answers came.
  private final ExecutorService completions =
      Executors.newSingleThreadExecutor(daemons("locksmith-completions-"));
  // Where locks for reactive results are taken, each waiting subscription blocking one: never a
  // shared pool (Reactor's bounded-elastic), whose every thread waits could then hold back the
  // holder's release and work queued behind them until the waits time out.
  private final ThreadPoolExecutor reactiveAcquirers =
      pool(REACTIVE_ACQUIRE_THREADS, REACTIVE_ACQUIRE_PREFIX);
  private final @Nullable ThreadPoolExecutor ownRenewers;
  private final Executor renewers;

  /**
   * @param renewalExecutor runs renewals, or {@code null} for a pool of these threads' own (one
   *     thread per provider with leases to renew, closed with them)
   */
  EngineThreads(@Nullable Executor renewalExecutor) {
    if (renewalExecutor != null) {
      this.ownRenewers = null;
      this.renewers = renewalExecutor;
    } else {
      // One thread: the renewal lanes raise it to one thread per provider with leases.
      ThreadPoolExecutor own = pool(1, RENEWAL_PREFIX);
      this.ownRenewers = own;
      this.renewers = own;
    }
  }

  /** Where locks for reactive results are taken; rejects once stopped. */
  Executor reactiveAcquirers() {
    return reactiveAcquirers;
  }

  /** Where renewals run. */
  Executor renewers() {
    return renewers;
  }

  /**
   * The engine's own renewal pool, whose core size the renewal lanes set; {@code null} if given.
   */
  @Nullable ThreadPoolExecutor ownRenewers() {
    return ownRenewers;
  }

  /**
   * Runs {@code task} on the sweeper every {@code periodMillis}, or returns {@code null} when
   * closed.
   */
  @Nullable ScheduledFuture<?> every(long periodMillis, Runnable task) {
    try {
      return sweeper.scheduleWithFixedDelay(
          task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      return null;
    }
  }

  /** Runs {@code task} on the sweeper after {@code delayNanos}; does nothing once closed. */
  void onSweeperAfter(long delayNanos, Runnable task) {
    try {
      sweeper.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // The engine is closing.
    }
  }

  /**
   * Runs a task on the background threads after a delay (in real time), such as a provider's outage
   * probe; does nothing once closed.
   */
  void runAfter(Duration delay, Runnable task) {
    try {
      if (delay.isZero() || delay.isNegative()) {
        background.execute(task);
      } else {
        onSweeperAfter(delay.toNanos(), () -> runAfter(Duration.ZERO, task));
      }
    } catch (RejectedExecutionException closing) {
      // The engine is closing.
    }
  }

  /**
   * Handles a provider's late answer on the completion thread; once closed the answer is dropped
   * (its lease ends by its ttl).
   */
  void complete(Runnable handling) {
    try {
      completions.execute(handling);
    } catch (RejectedExecutionException closed) {
      LOG.debug("A release answered after the engine closed; its lease ends by its ttl");
    }
  }

  /** A task told, instead of run, that the threads stopped while it was queued. */
  interface Refusable extends Runnable {
    /** Ends what waits for the task: it will not run. */
    void refuse();
  }

  /**
   * Stops every thread, interrupting the tasks running on them; the queued ones are dropped, each
   * {@link Refusable} told so.
   */
  void stop() {
    sweeper.shutdownNow();
    background.shutdownNow();
    completions.shutdownNow();
    for (Runnable dropped : reactiveAcquirers.shutdownNow()) {
      if (dropped instanceof Refusable queued) {
        queued.refuse();
      }
    }
    if (ownRenewers != null) {
      ownRenewers.shutdownNow();
    }
  }

  /**
   * Waits up to {@code wait} for the tasks still running after {@link #stop} to end. A close from
   * one of these threads (a listener's, say) does not wait.
   *
   * @return whether every task ended in time
   */
  boolean awaitStopped(Duration wait) {
    if (wait.isZero() || wait.isNegative() || OWN_THREAD.get()) {
      return background.isTerminated();
    }
    long deadline = System.nanoTime() + wait.toNanos();
    List<ExecutorService> own =
        ownRenewers == null
            ? List.of(background, sweeper, completions, reactiveAcquirers)
            : List.of(background, ownRenewers, sweeper, completions, reactiveAcquirers);
    try {
      for (ExecutorService executor : own) {
        long left = deadline - System.nanoTime();
        if (!executor.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * At most {@code threads} daemon threads, each ended after 30 s without work; tasks beyond them
   * queue in order.
   */
  private static ThreadPoolExecutor pool(int threads, String prefix) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemons(prefix));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private static ThreadFactory daemons(String prefix) {
    return task -> {
      Thread thread =
          new Thread(
              () -> {
                OWN_THREAD.set(true);
                task.run();
              },
              prefix + COUNT.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
