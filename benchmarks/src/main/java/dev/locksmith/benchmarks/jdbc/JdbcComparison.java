package dev.locksmith.benchmarks.jdbc;

import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.benchmarks.latency.LatencyLoops;
import dev.locksmith.benchmarks.latency.LatencyTables;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.report.Machine;
import dev.locksmith.benchmarks.report.ResultsSection;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC comparison, one command: JMH {@link JdbcProviderBenchmark} (uncontended lock+unlock on
 * PostgreSQL, ratios against the raw baseline), the hot-key hand-off on PostgreSQL for Locksmith
 * and ShedLock's retry loop, and Locksmith's lock+unlock and hand-off on PostgreSQL, MariaDB and
 * H2. Writes {@code benchmarks/target/jdbc.md} and, with {@code --results FILE}, the section {@code
 * jdbc} of that file.
 *
 * <p>Options: {@code --results FILE}, {@code --skip-jmh}. PostgreSQL: {@code
 * LOCKSMITH_TEST_POSTGRES_URL}, else a server of this JVM's own ({@link TestPostgres}); MariaDB:
 * {@code LOCKSMITH_TEST_MARIADB_URL}, else {@code jdbc:mariadb://127.0.0.1:3306/test?user=root};
 * H2: in memory. Every loop is bounded: {@value #PAIRS} pairs or 20 s, {@value #HANDOFFS} hand-offs
 * or 20 s.
 */
public final class JdbcComparison {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcComparison.class);
  static final int PAIRS = 2000;
  static final int HANDOFFS = 200;
  static final int ROUNDS = 5;
  private static final int WARMUP = 200;
  private static final Duration BOUND = Duration.ofSeconds(20);

  private JdbcComparison() {}

  /** Runs everything and writes the report. */
  public static void main(String[] args) throws Exception {
    Path results = null;
    boolean jmh = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--results" -> results = Path.of(args[++i]);
        case "--skip-jmh" -> jmh = false;
        default ->
            throw new IllegalArgumentException(
                "unknown option '" + args[i] + "'; expected --results FILE or --skip-jmh");
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("## 5. JDBC provider vs ShedLock (issue 19)\n\n")
        .append("Run ")
        .append(Instant.now())
        .append(" on ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores shared with other builds (figures taken under load; load average at the")
        .append(" start ")
        .append(Machine.loadAverage())
        .append(", at the end: see the last line). Command (about 2 minutes):\n\n")
        .append("```sh\n")
        .append("./mvnw -q -o -pl locking-jdbc,locking-test-kit install -DskipTests\n")
        .append("./mvnw -q -o -pl benchmarks package -DskipTests\n")
        .append("java -cp benchmarks/target/benchmarks.jar ")
        .append("dev.locksmith.benchmarks.jdbc.JdbcComparison --results benchmarks/RESULTS.md\n")
        .append("```\n");
    String postgres = TestPostgres.url("");
    if (jmh) {
      md.append(JmhTable.run(postgres));
    }
    md.append(interleaved(postgres));
    md.append(handOffs(postgres));
    md.append(perDatabase(postgres));
    md.append("\nLoad average at the end: ").append(Machine.loadAverage()).append(".\n");
    Path out = Path.of("benchmarks/target/jdbc.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    LOG.info("wrote {}", out);
    if (results != null) {
      ResultsSection.JDBC.write(results, md.toString());
      LOG.info("wrote the jdbc section of {}", results);
    }
    System.exit(0);
  }

  private static String interleaved(String postgres) throws Exception {
    Map<String, Contender> contenders = new LinkedHashMap<>();
    Map<String, Percentiles> figures;
    try {
      for (String system : List.of("raw", "locksmith", "shedlock", "shedlock-dbtime")) {
        contenders.put(system, Systems.contender(open(system, postgres)));
      }
      figures = LatencyLoops.interleaved(contenders, WARMUP, ROUNDS, PAIRS / ROUNDS, BOUND);
    } finally {
      contenders.values().forEach(Contender::close);
    }
    LOG.info("interleaved lock+unlock: {}", figures);
    return "\n### Uncontended lock+unlock on PostgreSQL, interleaved\n\n"
        + "The same four systems on the same server, one thread, timed with `System.nanoTime()`"
        + " in "
        + ROUNDS
        + " rounds that take turns ("
        + PAIRS / ROUNDS
        + " pairs per system and round, after "
        + WARMUP
        + " warm-up pairs each), so that a busy moment of the machine falls on every system"
        + " alike; or 20 s per system.\n\n"
        + LatencyTables.interleaved(figures, "raw");
  }

  private static String handOffs(String postgres) throws Exception {
    Map<String, LatencyLoops.Run> runs = new LinkedHashMap<>();
    for (String system : List.of("shedlock", "shedlock-dbtime", "locksmith")) {
      try (Contender a = Systems.contender(open(system, postgres));
          Contender b = Systems.contender(open(system, postgres))) {
        LatencyLoops.Run run = LatencyLoops.handOff(a, b, 20, HANDOFFS, BOUND);
        LOG.info("hand-off {}: {}", system, run);
        runs.put(system, run);
      }
    }
    return "\n### Hot-key hand-off on PostgreSQL\n\n"
        + "Two contenders with pools of their own, each driven from a thread of its own, take"
        + " turns on one key; the holder keeps it "
        + LatencyLoops.HOLD.toMillis()
        + " ms while the other waits; release call -> the other's grant. Locksmith waits"
        + " (`LISTEN/NOTIFY`); ShedLock cannot wait, so its waiter retries every "
        + Systems.RETRY_BACKOFF.toMillis()
        + " ms. "
        + HANDOFFS
        + " samples after 20 warm-up rounds, or 20 s.\n\n"
        + LatencyTables.handOffs(runs, "shedlock");
  }

  private static String perDatabase(String postgres) throws Exception {
    String mariadb = System.getenv("LOCKSMITH_TEST_MARIADB_URL");
    if (mariadb == null || mariadb.isBlank()) {
      mariadb = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    }
    List<String[]> databases = new ArrayList<>();
    databases.add(new String[] {"PostgreSQL", postgres});
    databases.add(new String[] {"MariaDB", mariadb});
    databases.add(new String[] {"H2 (in memory)", "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1"});
    StringBuilder md = new StringBuilder();
    md.append("\n### Locksmith per database\n\n")
        .append("Lock+unlock: one thread, uncontended, ")
        .append(PAIRS)
        .append(" pairs after 200 warm-up (provider SPI, pool of ")
        .append(Systems.POOL)
        .append("). Hand-off: as above. PostgreSQL wakes waiters by `LISTEN/NOTIFY`, MariaDB and")
        .append(" H2 by polling (`maxPoll` 100 ms).\n\n")
        .append("| database | lock+unlock p50 (ms) | p99 (ms) | hand-off p50 (ms) | p99 (ms) |")
        .append(" overlaps |\n|---|---:|---:|---:|---:|---:|\n");
    for (String[] database : databases) {
      LatencyLoops.Run pairs;
      LatencyLoops.Run handOff;
      try (Contender a = Systems.contender(Systems.locksmith(database[1]));
          Contender b = Systems.contender(Systems.locksmith(database[1]))) {
        pairs = LatencyLoops.lockUnlock(a, WARMUP, PAIRS, BOUND);
        handOff = LatencyLoops.handOff(a, b, 20, HANDOFFS, BOUND);
      }
      LOG.info("{}: lock+unlock {}, hand-off {}", database[0], pairs, handOff);
      md.append("| ")
          .append(database[0])
          .append(" | ")
          .append(LatencyTables.ms(pairs.percentiles().p50()))
          .append(" | ")
          .append(LatencyTables.ms(pairs.percentiles().p99()))
          .append(" | ")
          .append(LatencyTables.ms(handOff.percentiles().p50()))
          .append(" | ")
          .append(LatencyTables.ms(handOff.percentiles().p99()))
          .append(" | ")
          .append(handOff.overlaps())
          .append(" |\n");
    }
    return md.toString();
  }

  private static Systems.Lock open(String system, String url) throws Exception {
    return switch (system) {
      case "raw" -> Systems.raw(url);
      case "locksmith" -> Systems.locksmith(url);
      case "shedlock" -> Systems.shedLock(url, false);
      case "shedlock-dbtime" -> Systems.shedLock(url, true);
      default -> throw new IllegalArgumentException("unknown system '" + system + "'");
    };
  }
}
