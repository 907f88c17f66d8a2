package dev.locksmith.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How many things of one kind are under way (the locked calls running, the releases sent and not
 * yet confirmed by their provider nor ended by their lease's deadline), so that closing the engine
 * can wait for none to be left before it closes the providers.
 */
final class InFlight {
  private final AtomicInteger count = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition none = lock.newCondition();

  /** One more is under way. */
  void started() {
    count.incrementAndGet();
  }

  /** One started by {@link #started} is over. */
  void ended() {
    if (count.decrementAndGet() == 0) {
      lock.lock();
      try {
        none.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** How many are under way now. */
  int count() {
    return count.get();
  }

  /**
   * Waits until none is under way, or the timeout ran out.
   *
   * @return whether none is left
   */
  boolean await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (count.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        none.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
