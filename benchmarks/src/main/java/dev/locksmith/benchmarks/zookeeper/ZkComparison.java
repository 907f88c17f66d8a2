package dev.locksmith.benchmarks.zookeeper;

import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.report.ResultsSection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper comparison, one command: on one ZooKeeper server of its own (Curator's {@code
 * TestingServer} on 127.0.0.1), uncontended lock+unlock of a raw create-ephemeral + delete
 * baseline, Locksmith's provider and Curator's {@code InterProcessMutex}, interleaved, and the
 * hot-key hand-off between two clients for Locksmith and {@code InterProcessMutex}. Writes {@code
 * benchmarks/target/zookeeper.md} and, with {@code --results FILE}, the section {@code zookeeper}
 * of that file. Every loop is bounded: {@value #PAIRS} pairs or 20 s per system, {@value #HANDOFFS}
 * hand-offs or 20 s per system.
 */
public final class ZkComparison {
  private static final Logger LOG = LoggerFactory.getLogger(ZkComparison.class);
  static final int PAIRS = 2000;
  static final int HANDOFFS = 200;
  static final int ROUNDS = 5;
  private static final int WARMUP = 200;
  private static final Duration BOUND = Duration.ofSeconds(20);

  private ZkComparison() {}

  /** Runs everything and writes the report; option {@code --results FILE}. */
  public static void main(String[] args) throws Exception {
    Path results = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--results") && i + 1 < args.length) {
        results = Path.of(args[++i]);
      } else {
        throw new IllegalArgumentException(
            "unknown option '" + args[i] + "'; expected --results FILE");
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("## 6. ZooKeeper provider vs Curator's InterProcessMutex (issue 20)\n\n")
        .append("Run ")
        .append(Instant.now())
        .append(" on ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores shared with other builds (load average at the start ")
        .append(loadAverage())
        .append(", at the end: see the last line), ZooKeeper ")
        .append(org.apache.zookeeper.Version.getFullVersion().split("[- ]")[0])
        .append(" in the benchmark's JVM (`TestingServer` on 127.0.0.1, data on disk), every")
        .append(" client a Curator session of its own. Command (under 2 minutes):\n\n")
        .append("```sh\n")
        .append("./mvnw -q -o -pl locking-zookeeper install -DskipTests\n")
        .append("./mvnw -q -o -pl benchmarks package -DskipTests\n")
        .append("java -cp benchmarks/target/benchmarks.jar ")
        .append("dev.locksmith.benchmarks.zookeeper.ZkComparison --results benchmarks/RESULTS.md\n")
        .append("```\n");
    Path data = Files.createTempDirectory("locksmith-bench-zk");
    try (TestingServer server = new TestingServer(spec(data), true)) {
      String connect = server.getConnectString();
      md.append(interleaved(connect));
      md.append(handOffs(connect));
    }
    md.append("\nLoad average at the end: ").append(loadAverage()).append(".\n");
    Path out = Path.of("benchmarks/target/zookeeper.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    LOG.info("wrote {}", out);
    if (results != null) {
      ResultsSection.ZOOKEEPER.write(results, md.toString());
      LOG.info("wrote the zookeeper section of {}", results);
    }
    System.exit(0);
  }

  private static InstanceSpec spec(Path data) {
    return new InstanceSpec(
        data.toFile(),
        -1,
        -1,
        -1,
        true,
        -1,
        -1,
        -1,
        Map.of("clientPortAddress", "127.0.0.1"),
        "127.0.0.1");
  }

  private static String interleaved(String connect) throws Exception {
    Map<String, ZkContenders.Contender> contenders = new LinkedHashMap<>();
    Map<String, Percentiles> figures;
    try {
      for (String system : List.of("raw", "locksmith", "curator")) {
        contenders.put(system, ZkContenders.open(system, connect));
      }
      figures = ZkLatencies.interleaved(contenders, WARMUP, ROUNDS, PAIRS / ROUNDS, BOUND);
    } finally {
      contenders.values().forEach(ZkContenders.Contender::close);
    }
    LOG.info("interleaved lock+unlock: {}", figures);
    Percentiles raw = figures.get("raw");
    StringBuilder md = new StringBuilder();
    md.append("\n### Uncontended lock+unlock, interleaved\n\n")
        .append("One thread, one key, timed with `System.nanoTime()` in ")
        .append(ROUNDS)
        .append(" rounds that take turns (")
        .append(PAIRS / ROUNDS)
        .append(" pairs per system and round, after ")
        .append(WARMUP)
        .append(" warm-up pairs each), or 20 s per system. `raw`: create a plain ephemeral node")
        .append(" and delete it (2 round trips); `locksmith`: the provider SPI, `tryAcquire` +")
        .append(" `release`; `curator`: `InterProcessMutex.acquire(0, ms)` + `release()`.\n\n")
        .append("| system | pairs | p50 (ms) | p99 (ms) | p50 / raw | p99 / raw |\n")
        .append("|---|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, Percentiles> entry : figures.entrySet()) {
      Percentiles p = entry.getValue();
      md.append(
          String.format(
              Locale.ROOT,
              "| `%s` | %d | %s | %s | %.2f | %.2f |%n",
              entry.getKey(),
              p.count(),
              ms(p.p50()),
              ms(p.p99()),
              (double) p.p50() / raw.p50(),
              (double) p.p99() / raw.p99()));
    }
    return md.toString();
  }

  private static String handOffs(String connect) throws Exception {
    StringBuilder md = new StringBuilder();
    md.append("\n### Hot-key hand-off between two clients\n\n")
        .append("Two contenders, each with a session of its own and driven from a thread of its")
        .append(" own, take turns on one key; the holder keeps it ")
        .append(ZkLatencies.HOLD.toMillis())
        .append(" ms while the other waits (both push the grant: the waiter watches its")
        .append(" predecessor node); release call -> the other's grant. ")
        .append(HANDOFFS)
        .append(" samples after 20 warm-up rounds, or 20 s.\n\n")
        .append("| system | samples | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) | p50 / curator |")
        .append(" overlaps |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<String, ZkLatencies.Run> runs = new LinkedHashMap<>();
    for (String system : List.of("curator", "locksmith")) {
      try (ZkContenders.Contender a = ZkContenders.open(system, connect);
          ZkContenders.Contender b = ZkContenders.open(system, connect)) {
        ZkLatencies.Run run = ZkLatencies.handOff(a, b, 20, HANDOFFS, BOUND);
        LOG.info("hand-off {}: {}", system, run);
        runs.put(system, run);
      }
    }
    long baseline = runs.get("curator").percentiles().p50();
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
                  (double) p.p50() / baseline,
                  run.overlaps()));
        });
    return md.toString();
  }

  /** The 1, 5 and 15 minute load averages of {@code /proc/loadavg}, or "unknown". */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + " / " + parts[1] + " / " + parts[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
  }
}
