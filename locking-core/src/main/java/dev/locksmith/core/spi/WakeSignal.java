package dev.locksmith.core.spi;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One waiting caller's wake-up: a provider wakes it when a lock may have become free (a release, a
 * push notification, a reconnect after which notifications may have been missed), and the caller
 * then tries again. Wake-ups do not pile up: any number sent since the last wait count as one, at
 * once. No monitor is held while waiting.
 */
public final class WakeSignal {
  private final Semaphore signal = new Semaphore(0);

  /** Creates a signal that has not been woken. */
  public WakeSignal() {}

  /**
   * Waits until woken or {@code nanos} pass; a wake-up sent since the last wait ends it at once.
   *
   * @param nanos the longest wait
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public void await(long nanos) throws InterruptedException {
    if (signal.tryAcquire(Math.max(nanos, 1), TimeUnit.NANOSECONDS)) {
      signal.drainPermits();
    }
  }

  /** Wakes the waiter, or the next wait if none is waiting now. */
  public void wake() {
    if (signal.availablePermits() == 0) {
      signal.release();
    }
  }
}
