package dev.locksmith.core;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The one close of a lease that two threads may close at once (a signal hook and the main thread,
 * say): the first call runs it, and any other returns only once it has run, so that what that
 * caller does next (closing the engine, halting the JVM) comes after the release was started and
 * counted. A close reentered on the closing thread (a listener closing the lease it is told about)
 * returns at once.
 */
final class ClosingOnce {
  private final AtomicBoolean started = new AtomicBoolean();
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile @Nullable Thread closer;

  /** Whether a close has begun. */
  boolean started() {
    return started.get();
  }

  /**
   * Runs {@code close} on the first call; on a later one, waits until the first has run it.
   *
   * @return whether this call ran it
   */
  boolean run(Runnable close) {
    if (started.compareAndSet(false, true)) {
      closer = Thread.currentThread();
      try {
        close.run();
      } finally {
        closer = null;
        done.countDown();
      }
      return true;
    }
    if (closer != Thread.currentThread()) {
      awaitDone();
    }
    return false;
  }

  private void awaitDone() {
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the close is bounded by the release it sends; kept for the caller
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
