package dev.locksmith.benchmarks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.benchmarks.latency.LatencyLoops;
import dev.locksmith.benchmarks.latency.LatencyTables;
import dev.locksmith.benchmarks.load.Percentiles;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JDBC comparison's loops on a real H2 database, and its JMH table's ratios. */
class LatenciesTest {
  private static final String H2 = "jdbc:h2:mem:latencies-test;DB_CLOSE_DELAY=-1";

  @Test
  void handOffsBetweenTwoProvidersNeverOverlapAndAreAllCounted() throws Exception {
    try (Contender a = Systems.contender(Systems.locksmith(H2));
        Contender b = Systems.contender(Systems.locksmith(H2))) {
      LatencyLoops.Run run = LatencyLoops.handOff(a, b, 2, 10, Duration.ofSeconds(20));
      assertThat(run.overlaps()).isZero();
      assertThat(run.percentiles().count()).isEqualTo(10);
      assertThat(run.percentiles().p50()).isPositive();
      assertThat(LatencyTables.handOffs(Map.of("locksmith", run), "locksmith"))
          .contains("| `locksmith` | 10 |")
          .contains("| 1.00 | 0 |");
    }
  }

  @Test
  void interleavedRoundsGiveEveryLockItsPairs() throws Exception {
    try (Contender a = Systems.contender(Systems.locksmith(H2));
        Contender b = Systems.contender(Systems.locksmith(H2))) {
      Map<String, Contender> contenders = new LinkedHashMap<>();
      contenders.put("first", a);
      contenders.put("second", b);
      Map<String, Percentiles> figures =
          LatencyLoops.interleaved(contenders, 2, 3, 5, Duration.ofSeconds(20));
      assertThat(figures).containsOnlyKeys("first", "second");
      assertThat(figures.values()).allSatisfy(p -> assertThat(p.count()).isEqualTo(15));
      assertThat(LatencyTables.interleaved(figures, "first")).contains("| `first` | 15 |");
      assertThatThrownBy(() -> LatencyTables.interleaved(figures, "raw"))
          .hasMessageContaining("no figures for the baseline 'raw'");
    }
  }

  @Test
  void theJmhTableGivesRatiosToTheRawBaseline() {
    String table =
        JmhTable.render(
            List.of(
                new JmhTable.Row("raw", 400, 300, 900, 10),
                new JmhTable.Row("locksmith", 600, 450, 1800, 10)));
    assertThat(table).contains("| `locksmith` | 10 | 600 | 450 | 1800 | 1.50 | 1.50 |");
    assertThatThrownBy(() -> JmhTable.render(List.of(new JmhTable.Row("locksmith", 1, 1, 1, 1))))
        .hasMessageContaining("no raw baseline");
  }
}
