package dev.locksmith.benchmarks.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How {@link Capacity} words its figures. */
final class CapacityFigures {
  private CapacityFigures() {}

  static String capitalized(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  static String rounded(List<Double> values) {
    List<String> out = new ArrayList<>();
    for (double v : values) {
      out.add(String.format(Locale.ROOT, "%,.0f", v));
    }
    return String.join(", ", out);
  }

  static String describe(HeldLocks held) {
    return String.format(
        Locale.ROOT,
        "%,d granted, %,d refused (first: %s), error %s, %.1f s",
        held.granted(),
        held.refused(),
        held.firstRefusal(),
        held.firstError(),
        held.seconds());
  }

  static long perItem(long bytes, long items) {
    return items <= 0 ? 0 : Math.round((double) bytes / items);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.0f MiB", bytes / 1024.0 / 1024.0);
  }
}
