package dev.locksmith.tcp.server;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A warning that clients can cause over and over: logged at most once per interval, with how many
 * times it happened since it was last logged, so that no client can flood the server's log.
 */
final class ThrottledWarning {
  private final long intervalNanos;
  private final AtomicLong lastLogged;
  private final AtomicLong sinceLogged = new AtomicLong();

  ThrottledWarning(Duration interval) {
    this.intervalNanos = interval.toNanos();
    this.lastLogged = new AtomicLong(System.nanoTime() - intervalNanos);
  }

  /**
   * Counts one occurrence.
   *
   * @return how many occurrences the warning stands for when this one is to be logged, else 0
   */
  long occurred() {
    long count = sinceLogged.incrementAndGet();
    long now = System.nanoTime();
    long last = lastLogged.get();
    if (now - last >= intervalNanos && lastLogged.compareAndSet(last, now)) {
      sinceLogged.addAndGet(-count);
      return count;
    }
    return 0;
  }
}
