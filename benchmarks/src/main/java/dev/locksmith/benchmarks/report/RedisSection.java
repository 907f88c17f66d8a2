package dev.locksmith.benchmarks.report;

import static dev.locksmith.benchmarks.report.ReportText.jmhTable;
import static dev.locksmith.benchmarks.report.ReportText.ms;
import static dev.locksmith.benchmarks.report.ReportText.num;
import static dev.locksmith.benchmarks.report.ReportText.ratio;
import static dev.locksmith.benchmarks.report.ReportText.ratioOf;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.redis.CpuPerLock;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Section 2 of {@code RESULTS.md}: the Redis provider against its peers, uncontended (JMH), CPU per
 * lock, and hand-off latency relative to each peer.
 *
 * @param report the run's results
 */
record RedisSection(ResultsReport report) {
  /** Where the time of an uncontended lock+unlock goes: wall time beside client and server CPU. */
  private void cpuTable(StringBuilder md) {
    List<CpuPerLock.Row> redisCpu = report.redisCpu();
    if (redisCpu.isEmpty()) {
      return;
    }
    md.append("### Where the time goes: CPU per uncontended lock+unlock (`CpuPerLock`)\n\n");
    md.append(
        "The same locks against one `redis-server` of their own, "
            + CpuPerLock.WARM_UP
            + " operations each to warm up, then "
            + CpuPerLock.MEASURED
            + " measured in "
            + CpuPerLock.ROUNDS
            + " rounds in which the locks take turns (each figure the median of a lock's rounds):"
            + " the wall time per operation beside the CPU time the client process"
            + " (every thread: the caller, Netty's, the engine's) and `redis-server` (`INFO cpu`)"
            + " spent on it. When their sum divided by the cores comes near the wall time, a lock"
            + " is bound by CPU, not by round trips, and only costing less CPU makes it faster."
            + " `oneRoundTrip` is one `GET` through Redisson: the caller-visible floor of a lock"
            + " whose release is off the caller's path.\n\n");
    md.append(
        "| lock | wall us/op | client CPU us/op | server CPU us/op | (client + server) / cores"
            + " | wall vs `oneRoundTrip` |\n|---|---:|---:|---:|---:|---:|\n");
    Optional<CpuPerLock.Row> oneTrip =
        redisCpu.stream().filter(r -> r.lock().equals("oneRoundTrip")).findFirst();
    int cores = Runtime.getRuntime().availableProcessors();
    for (CpuPerLock.Row row : redisCpu) {
      md.append("| ")
          .append(row.lock())
          .append(" | ")
          .append(num(row.wallMicros()))
          .append(" | ")
          .append(num(row.clientMicros()))
          .append(" | ")
          .append(num(row.serverMicros()))
          .append(" | ")
          .append(num(row.totalMicros() / cores))
          .append(" | ")
          .append(oneTrip.map(t -> ratio(row.wallMicros() / t.wallMicros())).orElse("-"))
          .append(" |\n");
    }
    md.append('\n');
  }

  void write(StringBuilder md) {
    LoadBenchmarks.@Nullable Results load = report.load();
    md.append("## 2. Redis provider vs peers (issue 5)\n\n");
    List<JmhRow> rows = report.jmhOf(ResultsReport.REDIS_BENCHMARK);
    if (rows.isEmpty()) {
      md.append("JMH `RedisProviderBenchmark` did not run.\n\n");
    } else {
      md.append("### Uncontended lock+unlock, one thread (JMH `RedisProviderBenchmark`)\n\n");
      md.append(
          "All against the same local `redis-server`. `rawFloor` (the baseline) is the Locksmith"
              + " provider's own acquire and release Lua scripts sent back to back over the same"
              + " Redisson client the provider uses: two round trips, nothing else."
              + " `rawFloorReleaseAsync` sends the same release script without waiting for its"
              + " reply, as the engine does: the least a lock whose release is off the caller's"
              + " path can cost over this client."
              + " `locksmithAnnotated` is a `@DistributedLock` method called through the engine"
              + " (`Locksmith.invoke`, as an interceptor does) on the `redis://` provider, with"
              + " renewal scheduled and cancelled per call. `redissonRLock` is `RLock.lock()` +"
              + " `unlock()` (watchdog). `shedLock` is ShedLock's Spring Data Redis provider over"
              + " Lettuce with its defaults (`SET NX PX`, then a plain `DEL`: not owner-checked);"
              + " `shedLockSafeUpdate` the same with `safeUpdate(true)` (owner-checked)."
              + " `springIntegrationRegistry` is `RedisLockRegistry.obtain(key).lock()` +"
              + " `unlock()` over Lettuce (default spin-lock type; no contention, so no"
              + " spinning).\n\n");
      jmhTable(md, rows);
    }
    cpuTable(md);
    if (load != null) {
      md.append("### Hand-off latency relative to the peers\n\n");
      md.append(
          "From the hand-off table above (same run, same settings): Locksmith's Redis"
              + " provider's latency divided by each peer's (below 1 is faster).\n\n");
      md.append(
          "| peer | peer p50 | Locksmith p50 / peer p50 | peer p99 | Locksmith p99 / peer"
              + " p99 |\n|---|---:|---:|---:|---:|\n");
      Optional<LoadBenchmarks.HandoffRow> locksmith = report.handoff("locksmith-redis");
      for (LoadBenchmarks.HandoffRow peer : load.handoff()) {
        if (peer.system().startsWith("locksmith") || locksmith.isEmpty()) {
          continue;
        }
        Percentiles l = locksmith.get().latencies();
        Percentiles p = peer.latencies();
        md.append("| ")
            .append(peer.system())
            .append(" | ")
            .append(ms(p.p50()))
            .append(" | ")
            .append(ratioOf(l.p50(), p.p50()))
            .append(" | ")
            .append(ms(p.p99()))
            .append(" | ")
            .append(ratioOf(l.p99(), p.p99()))
            .append(" |\n");
      }
      md.append('\n');
    }
  }
}
