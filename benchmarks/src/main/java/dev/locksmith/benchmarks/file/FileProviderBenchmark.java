package dev.locksmith.benchmarks.file;

import dev.locksmith.benchmarks.BenchmarkDefaults;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared-file provider ({@code file://}) on a local temporary directory.
 *
 * <ul>
 *   <li>JMH: an uncontended {@code tryAcquire} + {@code release} cycle through the provider made by
 *       {@code LockProviders.create("file://" + dir)}, against the baseline of a raw {@code
 *       Files.createFile} + {@code Files.delete} in the same directory and the same run. {@code
 *       java -cp benchmarks.jar ...FileProviderBenchmark ratio} runs both and logs the ratio.
 *   <li>{@code main handoff [rounds] [holdMillis] [urlQuery]}: hand-off time between two processes
 *       under {@code WAIT}, measured by {@link FileHandoff}; {@code main holder ...} is its second
 *       JVM.
 * </ul>
 */
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 2)
public class FileProviderBenchmark extends BenchmarkDefaults {
  private static final Logger LOG = LoggerFactory.getLogger(FileProviderBenchmark.class);
  static final String LOCK_ID = "bench:file";
  static final String OWNER = "bench";
  static final Duration TTL = Duration.ofSeconds(30);

  private Path directory;
  private Path rawFile;
  private LockProvider provider;

  /** Creates a fresh temporary lock directory and its provider. */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    directory = Files.createTempDirectory("locksmith-file-bench");
    rawFile = directory.resolve("raw-baseline.lock");
    provider = LockProviders.create("file://" + directory);
  }

  /** Closes the provider and deletes the directory. */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    provider.close();
    deleteTree(directory);
  }

  /** The baseline: what any lock file costs at least, create-new and delete. */
  @Benchmark
  public Path rawCreateDelete() throws IOException {
    Files.createFile(rawFile);
    Files.delete(rawFile);
    return rawFile;
  }

  /** One uncontended cycle through the provider: a grant with a new fencing token, then release. */
  @Benchmark
  public long tryAcquireRelease() {
    LeaseGrant lease =
        provider
            .tryAcquire(new LockRequest(LOCK_ID, OwnerTokens.newToken(), TTL, OWNER))
            .orElseThrow(() -> new IllegalStateException("uncontended lock was busy"));
    if (!provider.release(lease)) {
      throw new IllegalStateException("release of " + lease + " failed");
    }
    return lease.fencingToken();
  }

  /**
   * {@code ratio}: runs both JMH benchmarks and logs the cycle against the baseline. {@code handoff
   * [rounds] [holdMillis] [urlQuery]}: the two-process hand-off. {@code holder ...}: the second
   * process of a hand-off (started by {@code handoff}).
   */
  public static void main(String[] args) throws Exception {
    String mode = args.length == 0 ? "ratio" : args[0];
    switch (mode) {
      case "ratio" -> ratio();
      case "handoff" ->
          FileHandoff.run(
              args.length > 1 ? Integer.parseInt(args[1]) : 1_000,
              args.length > 2 ? Integer.parseInt(args[2]) : 5,
              args.length > 3 ? args[3] : "");
      case "holder" ->
          FileHandoff.holder(
              args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Path.of(args[4]));
      default ->
          throw new IllegalArgumentException(
              "unknown mode '" + mode + "'; expected ratio, handoff or holder");
    }
  }

  private static void ratio() throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder().include(FileProviderBenchmark.class.getName() + "\\.").build())
            .run();
    double raw = Double.NaN;
    double cycle = Double.NaN;
    for (RunResult result : results) {
      String label = result.getPrimaryResult().getLabel();
      double score = result.getPrimaryResult().getScore();
      if (label.equals("rawCreateDelete")) {
        raw = score;
      } else if (label.equals("tryAcquireRelease")) {
        cycle = score;
      }
    }
    LOG.info(
        String.format(
            "file provider cycle %.1f us, raw create+delete %.1f us, ratio %.2f",
            cycle, raw, cycle / raw));
  }

  /** Deletes {@code root} and everything under it, if it exists. */
  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
