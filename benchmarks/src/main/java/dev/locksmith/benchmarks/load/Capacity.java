package dev.locksmith.benchmarks.load;

import dev.locksmith.benchmarks.report.Machine;
import dev.locksmith.benchmarks.report.ResultsSection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far one lock server goes, side by side with {@code redis-server} on the same machine:
 * connections held open with one lease each, locks held at once and the bytes each costs, grants
 * per second at 32 and 256 clients on distinct keys, hot-key hand-off latency, and what a
 * connection that pipelines requests and reads no reply costs the lock server. The lock server runs
 * in a JVM of its own with a fixed heap ({@code -Xmx1g} by default); clients run in this JVM, on
 * loopback only; every phase is bounded in count and time. Writes a Markdown section for {@code
 * RESULTS.md}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.load.Capacity \
 *     [--phases connections,locks,throughput,handoff,flood] [--connections N] [--locks N]
 *     [--lock-connections N] [--clients 32,256] [--flood-connections N] [--flood-bytes N]
 *     [--heap 1g] [--results benchmarks/RESULTS.md]
 * </pre>
 */
public final class Capacity {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);

  private final CapacityOptions options;
  private final Path log;
  private final StringBuilder md = new StringBuilder();

  private final CapacityFindings findings = new CapacityFindings();

  private Capacity(CapacityOptions options) throws IOException {
    this.options = options;
    Files.createDirectories(Path.of("benchmarks", "target"));
    this.log = Path.of("benchmarks", "target", "capacity-server.log").toAbsolutePath();
  }

  /** Runs the phases asked for and writes the section. */
  public static void main(String[] args) throws Exception {
    CapacityOptions options = CapacityOptions.parse(args);
    Capacity capacity = new Capacity(options);
    String section = capacity.run();
    Path out = Path.of("benchmarks", "target", "capacity.md");
    Files.writeString(out, section, StandardCharsets.UTF_8);
    LOG.info("wrote {}", out.toAbsolutePath());
    if (options.results != null) {
      ResultsSection.CAPACITY.write(options.results, section);
      LOG.info("updated the capacity section of {}", options.results.toAbsolutePath());
    }
    System.exit(0);
  }

  private String run() throws Exception {
    Instant start = Instant.now();
    String loadAtStart = Machine.loadAverage();
    StringBuilder body = new StringBuilder();
    int fdLimit = Probes.fdLimit();
    if (options.phases.contains("connections")) {
      body.append(ConnectionsPhase.run(options, log, findings, fdLimit));
    }
    if (options.phases.contains("locks")) {
      body.append(LocksPhase.run(options, log, findings));
    }
    if (options.phases.contains("throughput")) {
      body.append(ThroughputPhase.run(options, log, findings));
    }
    if (options.phases.contains("handoff")) {
      body.append(HandoffPhase.run(options, log, findings));
    }
    if (options.phases.contains("flood")) {
      body.append(FloodPhase.run(options, log));
    }
    body.append("### Where the limits are\n\n");
    for (String limit : findings.limits) {
      body.append("- ").append(limit).append('\n');
    }
    body.append('\n');
    md.append("## 3. Capacity of one lock server, side by side with redis-server\n\n");
    md.append("Written by `Capacity` (see `benchmarks/README.md`), not by `run.sh`:\n\n");
    md.append("```sh\n")
        .append("java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.load.Capacity")
        .append(options.args.isEmpty() ? "" : " " + String.join(" ", options.args))
        .append("\n```\n\n");
    md.append("- **run at:** ").append(start.truncatedTo(ChronoUnit.SECONDS)).append(" (UTC)\n");
    md.append("- **commit:** ")
        .append(System.getProperty("locksmith.commit", "unknown"))
        .append('\n');
    md.append("- **took:** ")
        .append(Duration.between(start, Instant.now()).toSeconds())
        .append(" s\n");
    md.append("- **load average (1/5/15 min) at start / end:** ")
        .append(loadAtStart)
        .append(" / ")
        .append(Machine.loadAverage())
        .append('\n');
    md.append("- **open-file limit per process (`ulimit -n`):** ").append(fdLimit).append('\n');
    Map<String, String> machine = Machine.describe();
    md.append("- **machine:** ")
        .append(machine.get("CPU"))
        .append(", ")
        .append(machine.get("cores available to the JVM"))
        .append(" cores, ")
        .append(machine.get("memory"))
        .append("; ")
        .append(machine.get("JVM"))
        .append("; ")
        .append(machine.get("redis-server"))
        .append("\n\n");
    md.append(
        "The lock server runs in a JVM of its own (`-Xms"
            + options.heap
            + " -Xmx"
            + options.heap
            + " -XX:+UseG1GC`, limits raised so that only memory and file descriptors bound it);"
            + " redis-server runs as a process of its own (`--save \"\" --appendonly no`). Clients"
            + " run in the benchmark's JVM, on loopback. Server memory is measured in the"
            + " server: the lock server's live heap after full collections (and the process's"
            + " RSS), Redis's `used_memory` (and `used_memory_rss`), before and after.\n\n");
    md.append(body);
    return md.toString();
  }
}
