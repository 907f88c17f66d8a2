package dev.locksmith.spring;

import dev.locksmith.core.Locks;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The body of a test job that holds its lock until the test lets it end. */
public final class HeldJob {
  private HeldJob() {}

  /**
   * Signals {@code entered}, waits (at most 10 s) for {@code release}, and returns the id of the
   * lock the call runs under; {@code "not released"} or {@code "interrupted"} when the wait ends
   * otherwise.
   */
  public static String holdUntilReleased(CountDownLatch entered, CountDownLatch release) {
    entered.countDown();
    try {
      if (!release.await(10, TimeUnit.SECONDS)) {
        return "not released";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    return Locks.current().lockId();
  }
}
