package dev.locksmith.core.spi;

import java.time.Duration;

/**
 * Turns a provider call's wait into a {@link System#nanoTime()} deadline, the one way every
 * provider bounds {@link LockProvider#acquire(LockRequest, Duration)}.
 */
public final class Deadlines {
  /** Waits longer than this (about 73 years) are waits without end; it keeps deadlines finite. */
  static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

  private Deadlines() {}

  /**
   * The {@code nanoTime} at which a wait of {@code timeout} that starts now ends: now for a
   * negative or zero timeout, and about 73 years from now for anything longer than that.
   *
   * @param timeout the wait
   * @return that {@code nanoTime}
   */
  public static long nanosAfter(Duration timeout) {
    return System.nanoTime() + waitNanos(timeout);
  }

  /** A wait's length in nanoseconds: 0 when negative, at most about 73 years. */
  static long waitNanos(Duration timeout) {
    if (timeout.isNegative()) {
      return 0;
    }
    if (timeout.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) {
      return MAX_WAIT_NANOS;
    }
    return timeout.toNanos();
  }
}
