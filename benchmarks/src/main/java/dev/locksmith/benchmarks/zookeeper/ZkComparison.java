package dev.locksmith.benchmarks.zookeeper;

import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.benchmarks.latency.LatencyLoops;
import dev.locksmith.benchmarks.latency.LatencyTables;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.benchmarks.report.Machine;
import dev.locksmith.benchmarks.report.ResultsSection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
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
        .append(Machine.loadAverage())
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
    md.append("\nLoad average at the end: ").append(Machine.loadAverage()).append(".\n");
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
    Map<String, Contender> contenders = new LinkedHashMap<>();
    Map<String, Percentiles> figures;
    try {
      for (String system : List.of("raw", "locksmith", "curator")) {
        contenders.put(system, ZkContenders.open(system, connect));
      }
      figures = LatencyLoops.interleaved(contenders, WARMUP, ROUNDS, PAIRS / ROUNDS, BOUND);
    } finally {
      contenders.values().forEach(Contender::close);
    }
    LOG.info("interleaved lock+unlock: {}", figures);
    return "\n### Uncontended lock+unlock, interleaved\n\n"
        + "One thread, one key, timed with `System.nanoTime()` in "
        + ROUNDS
        + " rounds that take turns ("
        + PAIRS / ROUNDS
        + " pairs per system and round, after "
        + WARMUP
        + " warm-up pairs each), or 20 s per system. `raw`: create a plain ephemeral node"
        + " and delete it (2 round trips); `locksmith`: the provider SPI, `tryAcquire` +"
        + " `release`; `curator`: `InterProcessMutex.acquire(0, ms)` + `release()`.\n\n"
        + LatencyTables.interleaved(figures, "raw");
  }

  private static String handOffs(String connect) throws Exception {
    Map<String, LatencyLoops.Run> runs = new LinkedHashMap<>();
    for (String system : List.of("curator", "locksmith")) {
      try (Contender a = ZkContenders.open(system, connect);
          Contender b = ZkContenders.open(system, connect)) {
        LatencyLoops.Run run = LatencyLoops.handOff(a, b, 20, HANDOFFS, BOUND);
        LOG.info("hand-off {}: {}", system, run);
        runs.put(system, run);
      }
    }
    return "\n### Hot-key hand-off between two clients\n\n"
        + "Two contenders, each with a session of its own and driven from a thread of its"
        + " own, take turns on one key; the holder keeps it "
        + LatencyLoops.HOLD.toMillis()
        + " ms while the other waits (both push the grant: the waiter watches its"
        + " predecessor node); release call -> the other's grant. "
        + HANDOFFS
        + " samples after 20 warm-up rounds, or 20 s.\n\n"
        + LatencyTables.handOffs(runs, "curator");
  }
}
