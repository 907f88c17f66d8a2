package dev.locksmith.benchmarks.redis;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The server's share of a round, from its {@code SLOWLOG} with {@code slowlog-log-slower-than 0}:
 * every command is logged with its execution time.
 */
final class SlowlogShare {
  private SlowlogShare() {}

  /** The server's µs per command name over the round, and per hand-off in total. */
  static String perHandoff(@Nullable Object log, int handoffs) {
    if (!(log instanceof List<?> entries) || handoffs == 0) {
      return "-";
    }
    Map<String, long[]> byName = new TreeMap<>();
    long total = 0;
    for (Object entry : entries) {
      if (!(entry instanceof List<?> fields) || fields.size() < 4) {
        continue;
      }
      long micros = ((Number) fields.get(2)).longValue();
      String name =
          fields.get(3) instanceof List<?> command && !command.isEmpty()
              ? String.valueOf(command.get(0)).toLowerCase(Locale.ROOT)
              : "?";
      if (name.equals("slowlog")) {
        continue;
      }
      if (name.equals("evalsha")
          && fields.get(3) instanceof List<?> command
          && command.size() > 1) {
        // One entry per script: evalsha:SHA-PREFIX.
        String sha = String.valueOf(command.get(1));
        name = "evalsha:" + sha.substring(0, Math.min(6, sha.length()));
      }
      long[] sum = byName.computeIfAbsent(name, n -> new long[2]);
      sum[0]++;
      sum[1] += micros;
      total += micros;
    }
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%.1f us/hand-off;", (double) total / handoffs));
    byName.forEach(
        (name, sum) ->
            out.append(
                String.format(
                    Locale.ROOT,
                    " %s %.2f/hand-off %.1f us",
                    name,
                    (double) sum[0] / handoffs,
                    (double) sum[1] / sum[0])));
    return out.toString();
  }
}
