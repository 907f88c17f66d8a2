package dev.locksmith.benchmarks.report;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.redis.CpuPerLock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Collectors;
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
    targets(md);
    tcpVersusRedis(md);
    redisVersusPeers(md);
    otherJmh(md);
    children(md);
    notMeasured(md);
    return md.toString();
  }

  // ---------------------------------------------------------------------------------- targets

  private void targets(StringBuilder md) {
    md.append("## Targets\n\n| issue | target | measured in this run | met |\n|---|---|---|---|\n");
    if (load != null) {
      Optional<LoadBenchmarks.ThroughputRow> tcp = throughput("locksmith-tcp");
      Optional<LoadBenchmarks.ThroughputRow> raw = throughput("redis-raw");
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
      Optional<LoadBenchmarks.HandoffRow> tcpHandoff = handoff("locksmith-tcp");
      if (tcpHandoff.isPresent()) {
        long p50 = tcpHandoff.get().latencies().p50();
        String vsRaw =
            handoff("redis-raw")
                .map(r -> ", " + ratio((double) p50 / r.latencies().p50()) + " of raw Redis's")
                .orElse("");
        target(md, "4", "TCP hand-off p50 < 1 ms", ms(p50) + vsRaw, p50 < 1_000_000);
      }
    }
    Optional<JmhRow> locksmith = jmh(REDIS_BENCHMARK, "locksmithAnnotated");
    Optional<JmhRow> floor = jmh(REDIS_BENCHMARK, "rawFloor");
    if (locksmith.isPresent() && floor.isPresent()) {
      double ratio = locksmith.get().score() / floor.get().score();
      target(
          md,
          "5",
          "Locksmith annotated lock+unlock within 1.1x of the raw floor",
          ratio(ratio) + " (medians " + score(locksmith.get()) + " vs " + score(floor.get()) + ")",
          verdict(ratio <= 1.1, locksmith.get(), floor.get()));
      for (String peer : List.of("redissonRLock", "shedLock", "springIntegrationRegistry")) {
        Optional<JmhRow> row = jmh(REDIS_BENCHMARK, peer);
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
    Optional<JmhRow> locksmith = jmh(REDIS_BENCHMARK, "locksmithAnnotated");
    Optional<JmhRow> fastest =
        REDIS_PEERS.stream()
            .map(peer -> jmh(REDIS_BENCHMARK, peer))
            .flatMap(Optional::stream)
            .min(Comparator.comparingDouble(JmhRow::score));
    if (locksmith.isPresent() && fastest.isPresent()) {
      double ratio = locksmith.get().score() / fastest.get().score();
      String floor =
          jmh(REDIS_BENCHMARK, "rawFloorReleaseAsync")
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
    if (locksmith.isPresent() && redisRoundTripMicros.isPresent()) {
      double oneTrip = redisRoundTripMicros.getAsDouble();
      double ratio = locksmith.get().score() / (2 * oneTrip);
      target(
          md,
          "22",
          "same, against redis-benchmark's one-connection p50 x 2 (aim 1.3x)",
          ratio(ratio) + " (" + score(locksmith.get()) + " vs 2 x " + num(oneTrip) + " us)",
          ratio <= 1.3 ? "yes" : "**no** (reported)");
    }
    Optional<LoadBenchmarks.HandoffRow> ours = handoff("locksmith-redis");
    Optional<LoadBenchmarks.HandoffRow> rlock = handoff("redisson-rlock");
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
    Optional<JmhRow> direct = jmh(ENGINE_BENCHMARK, "direct");
    Optional<JmhRow> keyed = jmh(ENGINE_BENCHMARK, "lockedWithKey");
    if (direct.isPresent() && keyed.isPresent() && keyed.get().unit().equals("ns/op")) {
      double overhead = keyed.get().score() - direct.get().score();
      target(
          md,
          "22",
          "engine overhead per uncontended annotated call (SpEL key), in-memory provider < 1 us",
          num(overhead) + " ns (medians " + score(keyed.get()) + " - " + score(direct.get()) + ")",
          overhead < 1000);
    }
    Optional<LoadBenchmarks.ThroughputRow> raw = throughput("redis-raw");
    Optional<LoadBenchmarks.ThroughputRow> engine = throughput("locksmith-redis-engine");
    if (raw.isPresent() && engine.isPresent()) {
      double base = raw.get().median();
      double ratio = engine.get().median() / base;
      String provider =
          throughput("locksmith-redis")
              .map(r -> "; the provider alone, release awaited: " + ratio(r.median() / base))
              .orElse("");
      String fenced =
          throughput("redis-raw-fenced")
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

  /**
   * "yes" or "no", or "within noise" when the two means' 99.9% error intervals overlap: then this
   * run cannot tell the two apart, whatever their medians say.
   */
  static String verdict(boolean met, JmhRow a, JmhRow b) {
    boolean known = !Double.isNaN(a.error()) && !Double.isNaN(b.error());
    boolean overlap =
        known
            && a.mean() - a.error() <= b.mean() + b.error()
            && b.mean() - b.error() <= a.mean() + a.error();
    String answer = met ? "yes" : "**no**";
    return overlap ? answer + " (within noise: error bars overlap)" : answer;
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

  // --------------------------------------------------------------------------------- issue 4

  private void tcpVersusRedis(StringBuilder md) {
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
    double base = throughput("redis-raw").map(LoadBenchmarks.ThroughputRow::median).orElse(0.0);
    for (LoadBenchmarks.ThroughputRow row : load.throughput()) {
      md.append("| ")
          .append(row.system())
          .append(" | ")
          .append(num(row.median()))
          .append(" | ")
          .append(base > 0 ? ratio(row.median() / base) : "n/a")
          .append(" | ")
          .append(row.rounds().stream().map(ResultsReport::num).collect(Collectors.joining(", ")))
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
    Optional<Percentiles> raw = handoff("redis-raw").map(LoadBenchmarks.HandoffRow::latencies);
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

  // --------------------------------------------------------------------------------- issue 5

  /** Where the time of an uncontended lock+unlock goes: wall time beside client and server CPU. */
  private void redisCpu(StringBuilder md) {
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

  private void redisVersusPeers(StringBuilder md) {
    md.append("## 2. Redis provider vs peers (issue 5)\n\n");
    List<JmhRow> rows = jmhOf(REDIS_BENCHMARK);
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
    redisCpu(md);
    if (load != null) {
      md.append("### Hand-off latency relative to the peers\n\n");
      md.append(
          "From the hand-off table above (same run, same settings): Locksmith's Redis"
              + " provider's latency divided by each peer's (below 1 is faster).\n\n");
      md.append(
          "| peer | peer p50 | Locksmith p50 / peer p50 | peer p99 | Locksmith p99 / peer"
              + " p99 |\n|---|---:|---:|---:|---:|\n");
      Optional<LoadBenchmarks.HandoffRow> locksmith = handoff("locksmith-redis");
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

  // ------------------------------------------------------------------------------ other JMH

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
          jmhTable(md, rows);
        });
  }

  private static void jmhTable(StringBuilder md, List<JmhRow> rows) {
    JmhRow baseline = baselineOf(rows);
    md.append("| benchmark | mode | median | mean ± error (99.9%) | unit | median ratio vs `")
        .append(baseline.method())
        .append("` |\n|---|---|---:|---:|---|---:|\n");
    for (JmhRow row : rows) {
      md.append("| ")
          .append(row.method())
          .append(row.params().isEmpty() ? "" : " (" + row.params() + ")")
          .append(row == baseline ? " (baseline)" : "")
          .append(" | ")
          .append(row.mode())
          .append(" | ")
          .append(num(row.score()))
          .append(" | ")
          .append(num(row.mean()))
          .append(Double.isNaN(row.error()) ? "" : " ± " + num(row.error()))
          .append(" | ")
          .append(row.unit())
          .append(" | ")
          .append(ratio(row.score() / baseline.score()))
          .append(" |\n");
    }
    md.append('\n');
  }

  /**
   * The known baseline of the class, else a method named like one ({@code baseline}, {@code
   * direct}, {@code raw...}), else the best score.
   */
  static JmhRow baselineOf(List<JmhRow> rows) {
    String known = BASELINES.get(rows.get(0).benchmarkClass());
    for (JmhRow row : rows) {
      if (row.method().equals(known)) {
        return row;
      }
    }
    for (JmhRow row : rows) {
      String m = row.method().toLowerCase(Locale.ROOT);
      if (m.contains("baseline") || m.equals("direct") || m.startsWith("raw")) {
        return row;
      }
    }
    JmhRow best = rows.get(0);
    for (JmhRow row : rows) {
      boolean better =
          row.higherIsBetter() ? row.score() > best.score() : row.score() < best.score();
      if (better) {
        best = row;
      }
    }
    return best;
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

  // ------------------------------------------------------------------------------ not measured

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

  // ---------------------------------------------------------------------------------- lookups

  private Optional<LoadBenchmarks.ThroughputRow> throughput(String system) {
    return load == null
        ? Optional.empty()
        : load.throughput().stream().filter(r -> r.system().equals(system)).findFirst();
  }

  private Optional<LoadBenchmarks.HandoffRow> handoff(String system) {
    return load == null
        ? Optional.empty()
        : load.handoff().stream()
            .filter(r -> r.system().equals(system) && r.latencies().count() > 0)
            .findFirst();
  }

  private Optional<JmhRow> jmh(String benchmarkClass, String method) {
    return jmh.stream()
        .filter(r -> r.benchmarkClass().equals(benchmarkClass) && r.method().equals(method))
        .findFirst();
  }

  private List<JmhRow> jmhOf(String benchmarkClass) {
    return jmh.stream().filter(r -> r.benchmarkClass().equals(benchmarkClass)).toList();
  }

  // ------------------------------------------------------------------------------- formatting

  static String num(double value) {
    double abs = Math.abs(value);
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.3f", value);
  }

  static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2fx", value);
  }

  static String ratioOf(long value, long base) {
    return base > 0 ? ratio((double) value / base) : "n/a";
  }

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
  }

  private static String score(JmhRow row) {
    return num(row.score()) + " " + row.unit();
  }
}
