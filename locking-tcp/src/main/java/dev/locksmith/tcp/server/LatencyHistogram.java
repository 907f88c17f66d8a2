package dev.locksmith.tcp.server;

import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed buckets from 50 µs to 5 s, as Prometheus histograms have them:
 * cumulative counts per upper bound, a count and a sum. Thread-safe; recording is a few adds.
 */
final class LatencyHistogram {
  /** Bucket upper bounds in seconds, ascending; the last bucket ({@code +Inf}) is implied. */
  static final double[] BOUNDS = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    2.5, 5
  };

  private static final long[] BOUND_NANOS = new long[BOUNDS.length];

  static {
    for (int i = 0; i < BOUNDS.length; i++) {
      BOUND_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
    }
  }

  private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
  private final LongAdder sumNanos = new LongAdder();

  LatencyHistogram() {
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new LongAdder();
    }
  }

  void record(long nanos) {
    long value = Math.max(0, nanos);
    int i = 0;
    while (i < BOUND_NANOS.length && value > BOUND_NANOS[i]) {
      i++;
    }
    buckets[i].increment();
    sumNanos.add(value);
  }

  /** The count in each bucket (not cumulative); the last is above the highest bound. */
  long[] counts() {
    long[] counts = new long[buckets.length];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = buckets[i].sum();
    }
    return counts;
  }

  double sumSeconds() {
    return sumNanos.sum() / 1e9;
  }

  /**
   * The upper bound, in seconds, of the bucket holding the {@code q} quantile of {@code counts}
   * (from {@link #counts()}); {@code NaN} when empty, {@code +Inf} when above the highest bound.
   */
  static double quantileBound(long[] counts, double q) {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    if (total == 0) {
      return Double.NaN;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return i < BOUNDS.length ? BOUNDS[i] : Double.POSITIVE_INFINITY;
      }
    }
    return Double.POSITIVE_INFINITY;
  }
}
