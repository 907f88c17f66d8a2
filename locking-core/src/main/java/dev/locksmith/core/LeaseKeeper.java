package dev.locksmith.core;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One scheduler for every held lease: renews each at a third of its TTL, or, for a lease that is
 * not renewed, reports it lost when its TTL runs out while still held. No thread per lock.
 */
final class LeaseKeeper implements AutoCloseable {
  private final ScheduledExecutorService scheduler;

  LeaseKeeper() {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new Daemons());
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.scheduler = executor;
  }

  ScheduledFuture<?> watch(ActiveLease lease) {
    long ttl = lease.options().ttl().toNanos();
    if (lease.options().renew()) {
      long period = Math.max(ttl / 3, TimeUnit.MILLISECONDS.toNanos(1));
      return scheduler.scheduleWithFixedDelay(
          lease::renewNow, period, period, TimeUnit.NANOSECONDS);
    }
    return scheduler.schedule(
        lease::expireIfStillHeld, lease.timeLeft().toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  private static final class Daemons implements ThreadFactory {
    private static final AtomicInteger COUNT = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "locksmith-lease-keeper-" + COUNT.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  }
}
