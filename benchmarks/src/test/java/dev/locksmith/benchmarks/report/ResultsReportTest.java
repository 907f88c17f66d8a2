package dev.locksmith.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.redis.CpuPerLock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ResultsReportTest {

  private static JmhRow redis(String method, double micros) {
    return new JmhRow(
        "RedisProviderBenchmark", method, "", "avgt", micros, micros + 1, 1.0, "us/op");
  }

  @Test
  void knownBaselineThenNamedBaselineThenBestScore() {
    assertThat(ReportText.baselineOf(List.of(redis("shedLock", 50), redis("rawFloor", 100))))
        .extracting(JmhRow::method)
        .isEqualTo("rawFloor");
    JmhRow direct = new JmhRow("FileBench", "direct", "", "avgt", 9, 9, 0, "ns/op");
    JmhRow other = new JmhRow("FileBench", "locked", "", "avgt", 3, 3, 0, "ns/op");
    assertThat(ReportText.baselineOf(List.of(other, direct))).isSameAs(direct);
    JmhRow slow = new JmhRow("X", "a", "", "thrpt", 10, 10, 0, "ops/s");
    JmhRow fast = new JmhRow("X", "b", "", "thrpt", 20, 20, 0, "ops/s");
    assertThat(ReportText.baselineOf(List.of(slow, fast))).isSameAs(fast);
  }

  @Test
  void overlappingErrorBarsAreCalledWithinNoise() {
    JmhRow a = new JmhRow("X", "a", "", "avgt", 100, 100, 10, "us/op");
    JmhRow near = new JmhRow("X", "b", "", "avgt", 115, 115, 10, "us/op");
    JmhRow far = new JmhRow("X", "c", "", "avgt", 200, 200, 10, "us/op");

    assertThat(ReportText.verdict(true, a, near))
        .isEqualTo("yes (within noise: error bars overlap)");
    assertThat(ReportText.verdict(true, a, far)).isEqualTo("yes");
    assertThat(ReportText.verdict(false, far, a)).isEqualTo("**no**");
  }

  @Test
  void rendersRatiosAgainstTheSameRunsBaselinesAndJudgesTheTargets() {
    LoadBenchmarks.Settings settings = LoadBenchmarks.Settings.quick();
    LoadBenchmarks.Results load =
        new LoadBenchmarks.Results(
            settings,
            List.of(
                new LoadBenchmarks.ThroughputRow(
                    "redis-raw", "raw", 8, List.of(1000.0), 1000, 0, OptionalDouble.of(12.5)),
                new LoadBenchmarks.ThroughputRow(
                    "locksmith-tcp", "tcp", 8, List.of(2500.0), 2500, 0, OptionalDouble.empty()),
                new LoadBenchmarks.ThroughputRow(
                    "redis-raw-fenced", "fenced", 8, List.of(900.0), 900, 0, OptionalDouble.of(14)),
                new LoadBenchmarks.ThroughputRow(
                    "locksmith-redis-engine",
                    "engine",
                    8,
                    List.of(800.0),
                    800,
                    0,
                    OptionalDouble.of(20))),
            List.of(
                handoff("redis-raw", 2_000_000),
                handoff("locksmith-tcp", 500_000),
                handoff("locksmith-redis", 1_000_000),
                handoff("redisson-rlock", 4_000_000)));
    List<JmhRow> jmh =
        List.of(
            redis("rawFloor", 100),
            redis("rawFloorReleaseAsync", 95),
            redis("locksmithAnnotated", 105),
            redis("redissonRLock", 150),
            redis("shedLock", 90),
            redis("springIntegrationRegistry", 200),
            new JmhRow("EngineOverheadBenchmark", "direct", "", "avgt", 0.5, 0.5, 0, "ns/op"),
            new JmhRow(
                "EngineOverheadBenchmark", "lockedWithKey", "", "avgt", 900.5, 901, 1, "ns/op"));

    String md =
        new ResultsReport(
                Map.of(),
                Map.of(),
                Map.of(),
                jmh,
                load,
                Map.of("child", List.of("p50 1 us")),
                OptionalDouble.of(50),
                List.of(
                    new CpuPerLock.Row("oneRoundTrip", 1000, 80, 70, 20),
                    new CpuPerLock.Row("locksmithAnnotated", 1000, 120, 100, 60)))
            .render();

    assertThat(md)
        .contains(
            "| 4 | TCP server throughput >= Redis's (8 clients, own keys) | 2.50x of raw Redis")
        .contains("| 4 | TCP hand-off p50 < 1 ms | 0.500 ms, 0.25x of raw Redis's | yes |")
        .contains("within 1.1x of the raw floor | 1.05x (medians 105 us/op vs 100 us/op) | yes |")
        .contains("| 5 | Locksmith ahead of redissonRLock | Locksmith takes 0.70x")
        .contains(
            "| 5 | Locksmith ahead of shedLock | Locksmith takes 1.17x of its median (90.0 us/op) | **no** |")
        .contains("| locksmithAnnotated | avgt | 105 | 106 ± 1.000 | us/op | 1.05x |")
        .contains("| redisson-rlock | 4.000 ms | 0.25x |")
        .contains("### child\n\n```\np50 1 us\n```")
        .contains("| locksmithAnnotated | 120 | 100 | 60.0 | ")
        .contains(" | 1.50x |")
        .contains(
            "| 22 | uncontended annotated lock+unlock <= 0.75x of the fastest peer | 1.17x of"
                + " shedLock (medians 105 us/op vs 90.0 us/op); the floor of this client, the"
                + " provider's two scripts with the release not awaited and nothing else"
                + " (`rawFloorReleaseAsync`): 1.06x (95.0 us/op) | **no** |")
        .contains("| redis-raw | 1,000 | 1.00x | 1,000 | 0 | 12.5 | raw |")
        .contains("| locksmith-tcp | 2,500 | 2.50x | 2,500 | 0 | - | tcp |")
        .contains(
            "| 22 | same, against redis-benchmark's one-connection p50 x 2 (aim 1.3x) | 1.05x"
                + " (105 us/op vs 2 x 50.0 us) | yes |")
        .contains(
            "| 22 | Redis hot-key hand-off p50 and p99 <= 1.0x of RLock's | p50 0.25x, p99 0.25x"
                + " (1.000 ms, 3.000 ms); p50 ratio per round: 0.25x, 0.25x | yes |")
        .contains(
            "| 22 | throughput on distinct keys, redis:// through the engine, >= 1.0x of raw SET NX"
                + " PX | 0.80x (800 vs 1,000 cycles/s; the raw lock with nothing added but a fencing"
                + " token (`redis-raw-fenced`): 0.90x) | **no** |")
        .contains(
            "Each system first makes a warm-up run of up to 10 hand-offs or 3000 ms, so that every"
                + " system's code is compiled before any is measured. Then each system runs once:"
                + " up to 50 samples or 3000 ms, after 1 hand-off discarded.")
        .contains(
            "| 22 | engine overhead per uncontended annotated call (SpEL key), in-memory provider"
                + " < 1 us | 900 ns (medians 901 ns/op - 0.500 ns/op) | yes |")
        .contains("lock4j");
  }

  @Test
  void describesInterleavedHandOffRounds() {
    LoadBenchmarks.Settings settings = LoadBenchmarks.Settings.defaults();

    assertThat(TcpSection.handoffRounds(settings))
        .isEqualTo(
            "Each system first makes a warm-up run of up to 500 hand-offs or 3750 ms, so that"
                + " every system's code is compiled before any is measured. Then the systems take"
                + " turns in 4 interleaved rounds, each keeping its clients, so that all meet the"
                + " machine's passing load alike: up to 250 samples or 3750 ms, after 25 hand-offs"
                + " discarded a round; the percentiles are over every round's samples together.");
  }

  private static LoadBenchmarks.HandoffRow handoff(String system, long p50) {
    return new LoadBenchmarks.HandoffRow(
        system,
        system,
        3,
        new Percentiles(100, p50, p50 * 2, p50 * 3, p50 * 4),
        0,
        0,
        Duration.ofSeconds(1).toSeconds(),
        List.of(p50, p50));
  }
}
