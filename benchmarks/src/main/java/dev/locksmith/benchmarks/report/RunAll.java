package dev.locksmith.benchmarks.report;

import dev.locksmith.benchmarks.load.LoadBenchmarks;
import dev.locksmith.benchmarks.redis.CpuPerLock;
import dev.locksmith.benchmarks.redis.RedisProviderBenchmark;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report command: runs every JMH benchmark in the jar (one fork each), then the load harnesses,
 * and writes {@code RESULTS.md}. Normally started by {@code benchmarks/run.sh}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.report.RunAll \
 *     [--out benchmarks/RESULTS.md] [--json benchmarks/target/jmh-results.json] \
 *     [--include REGEX] [--quick] [--skip-jmh] [--skip-load]
 * </pre>
 */
public final class RunAll {
  private static final Logger LOG = LoggerFactory.getLogger(RunAll.class);

  private RunAll() {}

  /**
   * Runs the benchmarks and writes the report; exits non-zero when a benchmark failed.
   *
   * @param args the options above
   */
  public static void main(String[] args) throws Exception {
    Arguments arguments = Arguments.parse(args);
    Instant start = Instant.now();
    String loadAtStart = Machine.loadAverage();
    LOG.info("load average at start: {}", loadAtStart);
    List<JmhRow> jmh = List.of();
    if (!arguments.skipJmh) {
      JmhBenchmarks.Plan plan =
          arguments.quick
              ? JmhBenchmarks.Plan.quick(arguments.include)
              : JmhBenchmarks.Plan.report(arguments.include);
      Files.createDirectories(arguments.json.toAbsolutePath().getParent());
      jmh = JmhBenchmarks.run(plan, arguments.json);
    }
    OptionalDouble roundTrip =
        arguments.skipJmh ? OptionalDouble.empty() : RedisRoundTrip.p50Micros();
    List<CpuPerLock.Row> redisCpu =
        arguments.skipJmh
                || !Pattern.compile(arguments.include)
                    .matcher(RedisProviderBenchmark.class.getName() + ".locksmithAnnotated")
                    .find()
            ? List.of()
            : CpuPerLock.measure();
    LoadBenchmarks.@Nullable Results load = null;
    if (!arguments.skipLoad) {
      load =
          LoadBenchmarks.run(
              arguments.quick
                  ? LoadBenchmarks.Settings.quick()
                  : LoadBenchmarks.Settings.defaults());
    }
    Map<String, List<String>> children = new LinkedHashMap<>();
    if (!arguments.skipLoad) {
      for (ChildHarness child : ChildHarness.known()) {
        if (child.present()) {
          LOG.info("running {}", child.title());
          children.put(child.title(), child.run());
        }
      }
    }
    Duration took = Duration.between(start, Instant.now());
    Map<String, String> header = new LinkedHashMap<>();
    header.put("run at", start.truncatedTo(ChronoUnit.SECONDS) + " (UTC)");
    header.put("commit", System.getProperty("locksmith.commit", "unknown"));
    header.put(
        "took",
        took.toMinutes()
            + " min "
            + took.toSecondsPart()
            + " s"
            + (arguments.quick ? " (--quick)" : ""));
    header.put("load average (1/5/15 min) at start", loadAtStart);
    header.put("load average (1/5/15 min) at end", Machine.loadAverage());
    header.put("JMH raw results", "`" + relative(arguments.json) + "` (not committed)");
    String markdown =
        new ResultsReport(
                header,
                Machine.describe(),
                Machine.versions(),
                jmh,
                load,
                children,
                roundTrip,
                redisCpu)
            .render();
    write(arguments.out, markdown);
    LOG.info("wrote {} after {} s", arguments.out, took.toSeconds());
    // Client libraries may leave non-daemon threads behind.
    System.exit(0);
  }

  private static void write(Path out, String markdown) throws IOException {
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    // The capacity, JDBC, ZooKeeper and renewal sections are written by their own commands; keep
    // them.
    String kept = markdown;
    for (ResultsSection section :
        List.of(
            ResultsSection.CAPACITY,
            ResultsSection.JDBC,
            ResultsSection.ZOOKEEPER,
            ResultsSection.RENEWALS)) {
      kept = section.carryOver(out, kept);
    }
    Files.writeString(out, kept, StandardCharsets.UTF_8);
  }

  /** The command line. */
  private static final class Arguments {
    Path out = Path.of("RESULTS.md");
    Path json = Path.of("target", "jmh-results.json");
    // The JDBC benchmark is run by its own command (jdbc.JdbcComparison), which needs PostgreSQL.
    String include = "dev\\.locksmith\\.benchmarks\\.(?!jdbc\\.).*";
    boolean quick;
    boolean skipJmh;
    boolean skipLoad;

    static Arguments parse(String[] args) {
      Arguments parsed = new Arguments();
      List<String> rest = new ArrayList<>(List.of(args));
      while (!rest.isEmpty()) {
        String arg = rest.remove(0);
        switch (arg) {
          case "--out" -> parsed.out = Path.of(value(arg, rest));
          case "--json" -> parsed.json = Path.of(value(arg, rest));
          case "--include" -> parsed.include = value(arg, rest);
          case "--quick" -> parsed.quick = true;
          case "--skip-jmh" -> parsed.skipJmh = true;
          case "--skip-load" -> parsed.skipLoad = true;
          default ->
              throw new IllegalArgumentException(
                  "unknown option '"
                      + arg
                      + "'; expected --out FILE, --json FILE, --include REGEX, --quick,"
                      + " --skip-jmh or --skip-load");
        }
      }
      return parsed;
    }

    private static String value(String option, List<String> rest) {
      if (rest.isEmpty()) {
        throw new IllegalArgumentException("option " + option + " needs a value");
      }
      return rest.remove(0);
    }
  }

  /** The path relative to the working directory, so the report names no machine's folders. */
  private static String relative(Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    Path here = Path.of("").toAbsolutePath();
    return absolute.startsWith(here)
        ? here.relativize(absolute).toString()
        : String.valueOf(absolute.getFileName());
  }
}
