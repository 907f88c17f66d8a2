package dev.locksmith.benchmarks.report;

/**
 * One JMH result.
 *
 * @param benchmarkClass the simple name of the benchmark class
 * @param method the benchmark method
 * @param params the JMH parameters, such as {@code size=10}, or empty
 * @param mode the JMH mode, such as {@code avgt}
 * @param score the median of the measured iterations' scores: on a machine shared with other builds
 *     a few iterations land on a busy moment and drag the mean far off, the median less so
 * @param mean JMH's primary score, the mean of the iterations
 * @param error the mean's 99.9% error, or NaN when too few iterations
 * @param unit the score's unit, such as {@code us/op}
 */
record JmhRow(
    String benchmarkClass,
    String method,
    String params,
    String mode,
    double score,
    double mean,
    double error,
    String unit) {

  /** Whether a higher score is better (throughput) rather than lower (time per op). */
  boolean higherIsBetter() {
    return mode.equals("thrpt");
  }
}
