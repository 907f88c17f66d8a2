package dev.locksmith.tcp.server;

import java.util.concurrent.atomic.AtomicLong;

/** The largest value recorded since the start, from any thread (the server's peaks, for tests). */
final class Peak {
  private final AtomicLong max = new AtomicLong();

  /** Records a value; keeps it if it is the largest so far. */
  void record(long value) {
    if (value > max.get()) {
      max.accumulateAndGet(value, Math::max);
    }
  }

  long get() {
    return max.get();
  }
}
