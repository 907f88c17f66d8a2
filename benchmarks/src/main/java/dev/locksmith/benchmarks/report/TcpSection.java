package dev.locksmith.benchmarks.report;

import static dev.locksmith.benchmarks.report.ReportText.ms;
import static dev.locksmith.benchmarks.report.ReportText.num;
import static dev.locksmith.benchmarks.report.ReportText.ratio;
import static dev.locksmith.benchmarks.report.ReportText.ratioOf;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.load.Percentiles;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Section 1 of {@code RESULTS.md}: the TCP lock server against Redis, throughput on distinct keys
 * and hand-off latency on one hot key, from the load harness.
 *
 * @param report the run's results
 */
record TcpSection(ResultsReport report) {
  void write(StringBuilder md) {
    LoadBenchmarks.@Nullable Results load = report.load();
    md.append("## 1. TCP lock server vs Redis (issue 4)\n\n");
    if (load == null) {
      md.append("Not run (`--skip-load`).\n\n");
      return;
    }
    LoadBenchmarks.Settings s = load.settings();
    md.append("### Throughput: lock+unlock cycles per second, ")
        .append(s.clients())
        .append(" concurrent clients on distinct keys\n\n");
    md.append(
        "Each system gets one client object shared by all "
            + s.clients()
            + " threads, as one process would hold it; each thread loops acquire + release on a"
            + " key of its own (no contention). The TCP server runs in-process on loopback; its"
            + " `tcp://` provider multiplexes every thread over **one connection**. Redis runs"
            + " as a separate local `redis-server`; its Redisson client has a pool of "
            + s.clients()
            + " connections opened up front, so no thread queues for a connection. Rounds of "
            + s.window().toSeconds()
            + " s are interleaved across systems ("
            + s.rounds()
            + " rounds after a "
            + s.warmup().toSeconds()
            + " s warm-up); the median is reported. `redis-server CPU us/cycle` is the server's"
            + " CPU time (`INFO cpu`) over a round, warm-up included, per cycle at the round's"
            + " rate (median of the rounds): what each system's commands and scripts cost the"
            + " one thread that serves every client.\n\n");
    md.append(
        "| system | cycles/s (median) | ratio vs raw Redis | rounds | failures | redis-server CPU"
            + " us/cycle | what |\n"
            + "|---|---:|---:|---|---:|---:|---|\n");
    double base =
        report.throughput("redis-raw").map(LoadBenchmarks.ThroughputRow::median).orElse(0.0);
    for (LoadBenchmarks.ThroughputRow row : load.throughput()) {
      md.append("| ")
          .append(row.system())
          .append(" | ")
          .append(num(row.median()))
          .append(" | ")
          .append(base > 0 ? ratio(row.median() / base) : "n/a")
          .append(" | ")
          .append(row.rounds().stream().map(ReportText::num).collect(Collectors.joining(", ")))
          .append(" | ")
          .append(row.failures())
          .append(" | ")
          .append(
              row.serverMicrosPerCycle().isPresent()
                  ? num(row.serverMicrosPerCycle().getAsDouble())
                  : "-")
          .append(" | ")
          .append(row.description())
          .append(" |\n");
    }
    md.append("\n### Hand-off latency on one hot key\n\n");
    md.append(
        s.contenders()
            + " contenders take turns on one key, each with a client (so connections) of its own,"
            + " as separate processes would. A holder keeps the lock "
            + s.hold().toMillis()
            + " ms so the others are parked waiting, then releases; latency runs from just before"
            + " the release call to the return of another contender's acquire. A releaser waits"
            + " until someone else holds the lock before competing again, so every sample is a"
            + " real hand-off to a parked waiter. "
            + handoffRounds(s)
            + " Every run also checks mutual exclusion (overlapping holders).\n\n");
    md.append(
        "| system | p50 | p90 | p99 | max | samples | p50 vs raw Redis | p99 vs raw Redis |"
            + " overlaps | failures | what |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    Optional<Percentiles> raw =
        report.handoff("redis-raw").map(LoadBenchmarks.HandoffRow::latencies);
    for (LoadBenchmarks.HandoffRow row : load.handoff()) {
      Percentiles p = row.latencies();
      md.append("| ")
          .append(row.system())
          .append(" | ")
          .append(ms(p.p50()))
          .append(" | ")
          .append(ms(p.p90()))
          .append(" | ")
          .append(ms(p.p99()))
          .append(" | ")
          .append(ms(p.max()))
          .append(" | ")
          .append(p.count())
          .append(" | ")
          .append(raw.map(r -> ratioOf(p.p50(), r.p50())).orElse("n/a"))
          .append(" | ")
          .append(raw.map(r -> ratioOf(p.p99(), r.p99())).orElse("n/a"))
          .append(" | ")
          .append(row.violations())
          .append(" | ")
          .append(row.failures())
          .append(" | ")
          .append(row.description())
          .append(" |\n");
    }
    md.append('\n');
  }

  /** How the hand-off runs were shared out: one run per system, or interleaved rounds. */
  static String handoffRounds(LoadBenchmarks.Settings s) {
    int rounds = Math.max(1, s.handoffRounds());
    long roundMillis = s.handoffMaxTime().dividedBy(rounds).toMillis();
    String warmup =
        "Each system first makes a warm-up run of up to "
            + s.handoffWarmup()
            + " hand-offs or "
            + roundMillis
            + " ms, so that every system's code is compiled before any is measured. ";
    int discarded = Math.max(1, s.handoffWarmup() / 20);
    String perRound =
        "up to "
            + s.handoffSamples() / rounds
            + " samples or "
            + roundMillis
            + " ms, after "
            + discarded
            + (discarded == 1 ? " hand-off" : " hand-offs")
            + " discarded";
    if (rounds == 1) {
      return warmup + "Then each system runs once: " + perRound + ".";
    }
    return warmup
        + "Then the systems take turns in "
        + rounds
        + " interleaved rounds, each keeping its clients, so that all meet the machine's passing"
        + " load alike: "
        + perRound
        + " a round; the percentiles are over every round's samples together.";
  }
}
