package dev.locksmith.benchmarks.redis;

/** Percentiles of latency samples in nanoseconds. */
final class Percentiles {
  private Percentiles() {}

  /** The {@code p}th percentile of sorted samples (nearest rank); NaN when there are none. */
  static double of(long[] sorted, int p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** Nanoseconds in microseconds. */
  static double micros(double nanos) {
    return nanos / 1_000.0;
  }
}
