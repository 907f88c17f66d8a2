package dev.locksmith.benchmarks.report;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.redis.CpuPerLock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.jspecify.annotations.Nullable;

/**
 * Renders {@code RESULTS.md}: every figure as a ratio against a baseline measured in the same run,
 * with the absolute numbers beside it.
 *
 * @param header when, where and how the run happened, one fact per entry
 * @param machine the machine's facts
 * @param versions the library versions
 * @param jmh the JMH results, or empty when JMH did not run
 * @param load the load harness results, or null when they did not run
 * @param children the log lines of harnesses run in child JVMs, by title
 * @param redisRoundTripMicros {@code redis-benchmark}'s one-connection p50, when it ran
 * @param redisCpu client and server CPU per uncontended lock+unlock ({@link CpuPerLock}), when it
 *     ran
 */
record ResultsReport(
    Map<String, String> header,
    Map<String, String> machine,
    Map<String, String> versions,
    List<JmhRow> jmh,
    LoadBenchmarks.@Nullable Results load,
    Map<String, List<String>> children,
    OptionalDouble redisRoundTripMicros,
    List<CpuPerLock.Row> redisCpu) {

  /** The peers issue 22's uncontended target is measured against, by JMH method. */
  static final List<String> REDIS_PEERS =
      List.of("redissonRLock", "shedLock", "shedLockSafeUpdate", "springIntegrationRegistry");

  static final String REDIS_BENCHMARK = "RedisProviderBenchmark";
  static final String ENGINE_BENCHMARK = "EngineOverheadBenchmark";

  /** The baseline method of each known JMH benchmark class. */
  static final Map<String, String> BASELINES =
      Map.of(REDIS_BENCHMARK, "rawFloor", ENGINE_BENCHMARK, "direct");

  String render() {
    StringBuilder md = new StringBuilder();
    md.append("# Locksmith benchmark results\n\n");
    md.append("Written by `benchmarks/run.sh` (see `benchmarks/README.md`). ");
    md.append("Every figure is a ratio against a baseline measured in the same run, ");
    md.append("with the absolute numbers beside it.\n\n");
    header.forEach((k, v) -> md.append("- **").append(k).append(":** ").append(v).append('\n'));
    md.append('\n');
    md.append(
        "> **Noise warning.** This machine has 2 cores, which other builds and tests may share"
            + " while the report runs (see the load averages above). Absolute numbers"
            + " swing a lot between runs; the ratios, measured side by side in one run, are the"
            + " figures to read, and even they carry the noise of whatever else ran at the"
            + " time. JMH ran one fork of many one-second iterations per benchmark to keep the"
            + " report under 20 minutes; the JMH tables rank by the **median iteration**, which"
            + " a few iterations on a busy moment do not drag off as they do the mean (both"
            + " shown).\n\n");
    md.append("## Machine\n\n| | |\n|---|---|\n");
    machine.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append("\n## Versions\n\n| library | version |\n|---|---|\n");
    versions.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append('\n');
    new TargetsTable(this).write(md);
    new TcpSection(this).write(md);
    new RedisSection(this).write(md);
    otherJmh(md);
    children(md);
    notMeasured(md);
    return md.toString();
  }

  private void otherJmh(StringBuilder md) {
    Map<String, List<JmhRow>> byClass = new LinkedHashMap<>();
    for (JmhRow row : jmh) {
      if (!row.benchmarkClass().equals(REDIS_BENCHMARK)) {
        byClass.computeIfAbsent(row.benchmarkClass(), k -> new ArrayList<>()).add(row);
      }
    }
    if (byClass.isEmpty()) {
      return;
    }
    md.append("## 3. Other JMH benchmarks\n\n");
    byClass.forEach(
        (name, rows) -> {
          md.append("### ").append(name).append("\n\n");
          if (name.equals(ENGINE_BENCHMARK)) {
            md.append(
                "The engine's own cost per uncontended annotated call on the in-memory"
                    + " provider, against the same method called directly.\n\n");
          }
          ReportText.jmhTable(md, rows);
        });
  }

  private void children(StringBuilder md) {
    if (children.isEmpty()) {
      return;
    }
    md.append("## 4. Other harnesses\n\n");
    md.append(
        "Run in a child JVM of their own; quoted from their log (absolute figures: these"
            + " harnesses choose their own baselines).\n\n");
    children.forEach(
        (title, lines) -> {
          md.append("### ").append(title).append("\n\n```\n");
          lines.forEach(line -> md.append(line).append('\n'));
          md.append("```\n\n");
        });
  }

  private static void notMeasured(StringBuilder md) {
    md.append("## Peers not measured\n\n");
    md.append(
        "- **lock4j** (`com.baomidou:lock4j`): skipped. It is a Spring Boot starter whose"
            + " latest release (2.2.x) targets Spring Boot 2/3, not Boot 4 / Spring 7 used here,"
            + " and it is not a lock of its own: its Redis executors call Redisson `RLock`"
            + " (`tryLock`) or run a `RedisTemplate` script, and its waits poll every 100 ms."
            + " The `RLock` row bounds its Redisson executor from below; its polling wait would"
            + " sit with the spin-lock row in the hand-off table.\n\n");
  }

  Optional<LoadBenchmarks.ThroughputRow> throughput(String system) {
    return load == null
        ? Optional.empty()
        : load.throughput().stream().filter(r -> r.system().equals(system)).findFirst();
  }

  Optional<LoadBenchmarks.HandoffRow> handoff(String system) {
    return load == null
        ? Optional.empty()
        : load.handoff().stream()
            .filter(r -> r.system().equals(system) && r.latencies().count() > 0)
            .findFirst();
  }

  Optional<JmhRow> jmh(String benchmarkClass, String method) {
    return jmh.stream()
        .filter(r -> r.benchmarkClass().equals(benchmarkClass) && r.method().equals(method))
        .findFirst();
  }

  List<JmhRow> jmhOf(String benchmarkClass) {
    return jmh.stream().filter(r -> r.benchmarkClass().equals(benchmarkClass)).toList();
  }
}
