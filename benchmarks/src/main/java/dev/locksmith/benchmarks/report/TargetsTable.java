package dev.locksmith.benchmarks.report;

import static dev.locksmith.benchmarks.report.ReportText.ms;
import static dev.locksmith.benchmarks.report.ReportText.num;
import static dev.locksmith.benchmarks.report.ReportText.ratio;
import static dev.locksmith.benchmarks.report.ReportText.ratioOf;
import static dev.locksmith.benchmarks.report.ReportText.score;
import static dev.locksmith.benchmarks.report.ReportText.verdict;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.load.Percentiles;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The "Targets" table of {@code RESULTS.md}: each performance target an issue set, what this run
 * measured against its baseline, and whether it was met.
 *
 * @param report the run's results
 */
record TargetsTable(ResultsReport report) {
  void write(StringBuilder md) {
    LoadBenchmarks.@Nullable Results load = report.load();
    md.append("## Targets\n\n| issue | target | measured in this run | met |\n|---|---|---|---|\n");
    if (load != null) {
      Optional<LoadBenchmarks.ThroughputRow> tcp = report.throughput("locksmith-tcp");
      Optional<LoadBenchmarks.ThroughputRow> raw = report.throughput("redis-raw");
      if (tcp.isPresent() && raw.isPresent()) {
        double ratio = tcp.get().median() / raw.get().median();
        target(
            md,
            "4",
            "TCP server throughput >= Redis's (" + tcp.get().clients() + " clients, own keys)",
            ratio(ratio)
                + " of raw Redis ("
                + num(tcp.get().median())
                + " vs "
                + num(raw.get().median())
                + " cycles/s)",
            ratio >= 1.0);
      }
      Optional<LoadBenchmarks.HandoffRow> tcpHandoff = report.handoff("locksmith-tcp");
      if (tcpHandoff.isPresent()) {
        long p50 = tcpHandoff.get().latencies().p50();
        String vsRaw =
            report
                .handoff("redis-raw")
                .map(r -> ", " + ratio((double) p50 / r.latencies().p50()) + " of raw Redis's")
                .orElse("");
        target(md, "4", "TCP hand-off p50 < 1 ms", ms(p50) + vsRaw, p50 < 1_000_000);
      }
    }
    Optional<JmhRow> locksmith = report.jmh(ResultsReport.REDIS_BENCHMARK, "locksmithAnnotated");
    Optional<JmhRow> floor = report.jmh(ResultsReport.REDIS_BENCHMARK, "rawFloor");
    if (locksmith.isPresent() && floor.isPresent()) {
      double ratio = locksmith.get().score() / floor.get().score();
      target(
          md,
          "5",
          "Locksmith annotated lock+unlock within 1.1x of the raw floor",
          ratio(ratio) + " (medians " + score(locksmith.get()) + " vs " + score(floor.get()) + ")",
          verdict(ratio <= 1.1, locksmith.get(), floor.get()));
      for (String peer : List.of("redissonRLock", "shedLock", "springIntegrationRegistry")) {
        Optional<JmhRow> row = report.jmh(ResultsReport.REDIS_BENCHMARK, peer);
        if (row.isPresent()) {
          double vsPeer = locksmith.get().score() / row.get().score();
          target(
              md,
              "5",
              "Locksmith ahead of " + peer,
              "Locksmith takes " + ratio(vsPeer) + " of its median (" + score(row.get()) + ")",
              verdict(vsPeer < 1.0, locksmith.get(), row.get()));
        }
      }
    }
    fasterThanPeers(md);
    md.append('\n');
  }

  /** Issue 22: the Redis figures against the fastest peer, Redis itself, RLock and a raw lock. */
  private void fasterThanPeers(StringBuilder md) {
    Optional<JmhRow> locksmith = report.jmh(ResultsReport.REDIS_BENCHMARK, "locksmithAnnotated");
    Optional<JmhRow> fastest =
        ResultsReport.REDIS_PEERS.stream()
            .map(peer -> report.jmh(ResultsReport.REDIS_BENCHMARK, peer))
            .flatMap(Optional::stream)
            .min(Comparator.comparingDouble(JmhRow::score));
    if (locksmith.isPresent() && fastest.isPresent()) {
      double ratio = locksmith.get().score() / fastest.get().score();
      String floor =
          report
              .jmh(ResultsReport.REDIS_BENCHMARK, "rawFloorReleaseAsync")
              .map(
                  f ->
                      "; the floor of this client, the provider's two scripts with the release"
                          + " not awaited and nothing else (`rawFloorReleaseAsync`): "
                          + ratio(f.score() / fastest.get().score())
                          + " ("
                          + score(f)
                          + ")")
              .orElse("");
      target(
          md,
          "22",
          "uncontended annotated lock+unlock <= 0.75x of the fastest peer",
          ratio(ratio)
              + " of "
              + fastest.get().method()
              + " (medians "
              + score(locksmith.get())
              + " vs "
              + score(fastest.get())
              + ")"
              + floor,
          verdict(ratio <= 0.75, locksmith.get(), fastest.get()));
    }
    if (locksmith.isPresent() && report.redisRoundTripMicros().isPresent()) {
      double oneTrip = report.redisRoundTripMicros().getAsDouble();
      double ratio = locksmith.get().score() / (2 * oneTrip);
      target(
          md,
          "22",
          "same, against redis-benchmark's one-connection p50 x 2 (aim 1.3x)",
          ratio(ratio) + " (" + score(locksmith.get()) + " vs 2 x " + num(oneTrip) + " us)",
          ratio <= 1.3 ? "yes" : "**no** (reported)");
    }
    Optional<LoadBenchmarks.HandoffRow> ours = report.handoff("locksmith-redis");
    Optional<LoadBenchmarks.HandoffRow> rlock = report.handoff("redisson-rlock");
    if (ours.isPresent() && rlock.isPresent()) {
      Percentiles a = ours.get().latencies();
      Percentiles b = rlock.get().latencies();
      double p50 = (double) a.p50() / b.p50();
      double p99 = (double) a.p99() / b.p99();
      target(
          md,
          "22",
          "Redis hot-key hand-off p50 and p99 <= 1.0x of RLock's",
          "p50 "
              + ratio(p50)
              + ", p99 "
              + ratio(p99)
              + " ("
              + ms(a.p50())
              + ", "
              + ms(a.p99())
              + ")"
              + roundRatios(ours.get(), rlock.get()),
          p50 <= 1.0 && p99 <= 1.0);
    }
    Optional<JmhRow> direct = report.jmh(ResultsReport.ENGINE_BENCHMARK, "direct");
    Optional<JmhRow> keyed = report.jmh(ResultsReport.ENGINE_BENCHMARK, "lockedWithKey");
    if (direct.isPresent() && keyed.isPresent() && keyed.get().unit().equals("ns/op")) {
      double overhead = keyed.get().score() - direct.get().score();
      target(
          md,
          "22",
          "engine overhead per uncontended annotated call (SpEL key), in-memory provider < 1 us",
          num(overhead) + " ns (medians " + score(keyed.get()) + " - " + score(direct.get()) + ")",
          overhead < 1000);
    }
    Optional<LoadBenchmarks.ThroughputRow> raw = report.throughput("redis-raw");
    Optional<LoadBenchmarks.ThroughputRow> engine = report.throughput("locksmith-redis-engine");
    if (raw.isPresent() && engine.isPresent()) {
      double base = raw.get().median();
      double ratio = engine.get().median() / base;
      String provider =
          report
              .throughput("locksmith-redis")
              .map(r -> "; the provider alone, release awaited: " + ratio(r.median() / base))
              .orElse("");
      String fenced =
          report
              .throughput("redis-raw-fenced")
              .map(
                  r ->
                      "; the raw lock with nothing added but a fencing token (`redis-raw-fenced`): "
                          + ratio(r.median() / base))
              .orElse("");
      target(
          md,
          "22",
          "throughput on distinct keys, redis:// through the engine, >= 1.0x of raw SET NX PX",
          ratio(ratio)
              + " ("
              + num(engine.get().median())
              + " vs "
              + num(base)
              + " cycles/s"
              + provider
              + fenced
              + ")",
          ratio >= 1.0);
    }
  }

  /**
   * "; per round p50 A/B: r1, r2, ..." for two systems' hand-off rows of more than one round: the
   * ratio of their medians in each round, which met the same passing load.
   */
  static String roundRatios(LoadBenchmarks.HandoffRow a, LoadBenchmarks.HandoffRow b) {
    int rounds = Math.min(a.roundP50s().size(), b.roundP50s().size());
    if (rounds < 2) {
      return "";
    }
    StringBuilder text = new StringBuilder("; p50 ratio per round: ");
    for (int i = 0; i < rounds; i++) {
      text.append(i == 0 ? "" : ", ").append(ratioOf(a.roundP50s().get(i), b.roundP50s().get(i)));
    }
    return text.toString();
  }

  private static void target(
      StringBuilder md, String issue, String target, String measured, boolean met) {
    target(md, issue, target, measured, met ? "yes" : "**no**");
  }

  private static void target(
      StringBuilder md, String issue, String target, String measured, String met) {
    md.append("| ")
        .append(issue)
        .append(" | ")
        .append(target)
        .append(" | ")
        .append(measured)
        .append(" | ")
        .append(met)
        .append(" |\n");
  }
}
