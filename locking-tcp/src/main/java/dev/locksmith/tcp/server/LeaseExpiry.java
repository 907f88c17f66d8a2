package dev.locksmith.tcp.server;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * When held leases end: the {@link ExpiryHeap} of held leases and one timer on the core thread,
 * always set for the lease that ends first. When it fires, every lease due by then is handed to the
 * lock table to end, and the timer is set for the next. Core thread only.
 */
final class LeaseExpiry {
  /** Ends a lease whose time is up (and hands its lock on). */
  interface Ender {
    void expire(LockEntry entry, long now);
  }

  private final ExpiryHeap heap = new ExpiryHeap();
  private final ScheduledExecutorService core;
  private final Ender ender;
  private @Nullable ScheduledFuture<?> timer;
  private long timerAt;

  LeaseExpiry(ScheduledExecutorService core, Ender ender) {
    this.core = core;
    this.ender = ender;
  }

  /** How long the lease that ends last has left at {@code now}, rounded up; 0 when none is held. */
  long latestLeftMillis(long now) {
    LockEntry last = heap.last();
    if (last == null) {
      return 0;
    }
    long left = last.expiresAt - now;
    return left <= 0 ? 0 : (left + 999_999) / 1_000_000;
  }

  /** A lease was granted, ending at its {@link LockEntry#expiresAt}. */
  void add(LockEntry entry) {
    heap.add(entry);
    arm();
  }

  /** A lease ended before its time (release, disconnect) or is being ended. */
  void remove(LockEntry entry) {
    heap.remove(entry);
  }

  /** A lease's {@link LockEntry#expiresAt} moved (renew, hold). */
  void changed(LockEntry entry) {
    heap.changed(entry);
    arm();
  }

  /** Keeps the timer set for the lease that ends first. */
  private void arm() {
    LockEntry first = heap.first();
    if (first == null) {
      return;
    }
    ScheduledFuture<?> set = timer;
    if (set != null && first.expiresAt - timerAt >= 0) {
      return;
    }
    if (set != null) {
      set.cancel(false);
    }
    timerAt = first.expiresAt;
    try {
      timer =
          core.schedule(
              this::due, Math.max(0, first.expiresAt - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      timer = null; // shutting down; the leases end with the server
    }
  }

  private void due() {
    timer = null;
    long now = System.nanoTime();
    LockEntry first;
    while ((first = heap.first()) != null && now - first.expiresAt >= 0) {
      ender.expire(first, now);
    }
    arm();
  }
}
