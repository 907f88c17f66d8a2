package dev.locksmith.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread that keeps every held lease: renews each when a third of its TTL has passed,
 * and reports a lease that is not renewed lost when its TTL runs out while it is still held.
 *
 * <p>Like a timer wheel, it sweeps the held leases every {@link #TICK_MILLIS} ms rather than
 * scheduling a task per lease, so taking and releasing a lock costs a set insertion and removal and
 * nothing more; the sweep starts with the first lease and a renewal is late by at most a tick.
 */
final class LeaseKeeper implements AutoCloseable {
  static final long TICK_MILLIS = 10;
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final AtomicInteger COUNT = new AtomicInteger();

  private final Set<ActiveLease> leases = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean started = new AtomicBoolean();
  private final ScheduledThreadPoolExecutor scheduler =
      new ScheduledThreadPoolExecutor(
          1,
          task -> {
            Thread thread = new Thread(task, "locksmith-lease-keeper-" + COUNT.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  void watch(ActiveLease lease) {
    leases.add(lease);
    if (!started.get() && started.compareAndSet(false, true)) {
      scheduler.scheduleWithFixedDelay(
          this::sweep, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  void unwatch(ActiveLease lease) {
    leases.remove(lease);
  }

  private void sweep() {
    long now = System.nanoTime();
    for (ActiveLease lease : leases) {
      try {
        if (!lease.keep(now)) {
          leases.remove(lease);
        }
      } catch (RuntimeException e) {
        LOG.warn("Keeping lease on '{}' failed", lease.lockId(), e);
      }
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    leases.clear();
  }
}
