package dev.locksmith.benchmarks.latency;

import dev.locksmith.benchmarks.load.Percentiles;
import java.util.Locale;
import java.util.Map;

/** The Markdown rows of the latency loops' figures, in milliseconds with ratios to a baseline. */
public final class LatencyTables {
  private LatencyTables() {}

  /**
   * The table of {@link LatencyLoops#interleaved} figures: pairs, p50 and p99 of each system, and
   * both as ratios to the system named {@code baseline}.
   */
  public static String interleaved(Map<String, Percentiles> figures, String baseline) {
    Percentiles base = figures.get(baseline);
    if (base == null) {
      throw new IllegalArgumentException(
          "no figures for the baseline '" + baseline + "' among " + figures.keySet());
    }
    StringBuilder md =
        new StringBuilder(
            "| system | pairs | p50 (ms) | p99 (ms) | p50 / "
                + baseline
                + " | p99 / "
                + baseline
                + " |\n|---|---:|---:|---:|---:|---:|\n");
    figures.forEach(
        (system, p) ->
            md.append(
                String.format(
                    Locale.ROOT,
                    "| `%s` | %d | %s | %s | %.2f | %.2f |%n",
                    system,
                    p.count(),
                    ms(p.p50()),
                    ms(p.p99()),
                    (double) p.p50() / base.p50(),
                    (double) p.p99() / base.p99())));
    return md.toString();
  }

  /**
   * The table of {@link LatencyLoops#handOff} runs: samples, p50, p90, p99 and max of each system,
   * its p50 as a ratio to the system named {@code baseline}, and its overlaps (must be 0).
   */
  public static String handOffs(Map<String, LatencyLoops.Run> runs, String baseline) {
    LatencyLoops.Run base = runs.get(baseline);
    if (base == null) {
      throw new IllegalArgumentException(
          "no hand-offs for the baseline '" + baseline + "' among " + runs.keySet());
    }
    StringBuilder md =
        new StringBuilder(
            "| system | samples | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) | p50 / "
                + baseline
                + " | overlaps |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    runs.forEach(
        (system, run) -> {
          Percentiles p = run.percentiles();
          md.append(
              String.format(
                  Locale.ROOT,
                  "| `%s` | %d | %s | %s | %s | %s | %.2f | %d |%n",
                  system,
                  p.count(),
                  ms(p.p50()),
                  ms(p.p90()),
                  ms(p.p99()),
                  ms(p.max()),
                  (double) p.p50() / base.percentiles().p50(),
                  run.overlaps()));
        });
    return md.toString();
  }

  /** Nanoseconds as milliseconds with two decimals. */
  public static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
  }
}
