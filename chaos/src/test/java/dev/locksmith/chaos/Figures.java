package dev.locksmith.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures of one scenario run, in the order they were put, plus latency summaries. */
final class Figures {
  private final Map<String, Object> values = new LinkedHashMap<>();

  /** Puts a count or a text. */
  Figures put(String name, Object value) {
    values.put(name, value);
    return this;
  }

  /** Puts a duration in milliseconds, one decimal. */
  Figures millis(String name, Duration value) {
    return millis(name, value.toNanos());
  }

  /** Puts a duration given in nanoseconds, in milliseconds with one decimal. */
  Figures millis(String name, long nanos) {
    values.put(name + " (ms)", Math.round(nanos / 100_000.0) / 10.0);
    return this;
  }

  /** Puts p50, p99 and max of the durations, in nanoseconds, under {@code name}. */
  Figures latencies(String name, Collection<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    sorted.sort(null);
    values.put(name + " count", sorted.size());
    if (!sorted.isEmpty()) {
      millis(name + " p50", percentile(sorted, 50));
      millis(name + " p99", percentile(sorted, 99));
      millis(name + " max", sorted.get(sorted.size() - 1));
    }
    return this;
  }

  /** The nearest-rank percentile of sorted values. */
  static long percentile(List<Long> sorted, int percent) {
    int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
  }

  Map<String, Object> values() {
    return values;
  }
}
