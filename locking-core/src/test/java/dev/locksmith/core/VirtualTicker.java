package dev.locksmith.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Virtual time for engine tests: moves only when a test advances it. */
final class VirtualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
