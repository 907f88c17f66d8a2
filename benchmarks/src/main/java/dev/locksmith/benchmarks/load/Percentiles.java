package dev.locksmith.benchmarks.load;

import java.util.Arrays;

/**
 * Latency percentiles from a sorted copy of the samples (nearest rank), in nanoseconds.
 *
 * @param count how many samples
 * @param p50 the median
 * @param p90 the 90th percentile
 * @param p99 the 99th percentile
 * @param max the largest sample
 */
public record Percentiles(int count, long p50, long p90, long p99, long max) {

  /** The percentiles of {@code samples}; all zero when there are none. */
  public static Percentiles of(long[] samples) {
    if (samples.length == 0) {
      return new Percentiles(0, 0, 0, 0, 0);
    }
    long[] sorted = samples.clone();
    Arrays.sort(sorted);
    return new Percentiles(
        sorted.length,
        rank(sorted, 0.50),
        rank(sorted, 0.90),
        rank(sorted, 0.99),
        sorted[sorted.length - 1]);
  }

  /** The nearest-rank percentile {@code q} (0 to 1) of sorted samples. */
  static long rank(long[] sorted, double q) {
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, index))];
  }
}
