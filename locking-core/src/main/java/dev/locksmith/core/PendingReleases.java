package dev.locksmith.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The releases sent and not yet confirmed by their provider (nor ended by their lease's deadline),
 * of locked calls and of programmatic leases alike, so that closing the engine can wait for them
 * before it closes the providers.
 */
final class PendingReleases {
  private final AtomicInteger pending = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition drained = lock.newCondition();

  /** A release was sent and its answer is awaited. */
  void started() {
    pending.incrementAndGet();
  }

  /** A release started by {@link #started} was confirmed, failed or ended by its deadline. */
  void ended() {
    if (pending.decrementAndGet() == 0) {
      lock.lock();
      try {
        drained.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** How many releases are unconfirmed now. */
  int count() {
    return pending.get();
  }

  /**
   * Waits until every release is confirmed, or the timeout ran out.
   *
   * @return whether none is left
   */
  boolean await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (pending.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        drained.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
