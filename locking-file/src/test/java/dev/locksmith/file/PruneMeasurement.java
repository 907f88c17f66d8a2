package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.request;

import dev.locksmith.core.spi.LeaseGrant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Measures the state a lock directory keeps per lock id and what {@link FileLockMaintenance#prune}
 * reclaims: acquires and releases each of {@code ids} distinct ids once ({@code account:0}, {@code
 * account:1}, ...), counts the files and bytes, prunes as a run two hours later would (a clock two
 * hours ahead, {@code olderThan} one hour), and counts again. {@link FileLockMaintenanceTest} runs
 * it with 10,000 ids; for the figures in the README run it by hand:
 *
 * <pre>
 * ./mvnw -q -o -pl locking-file test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
 * java -cp locking-file/target/test-classes:locking-file/target/classes:$(cat \
 *     locking-file/target/test.classpath) dev.locksmith.file.PruneMeasurement 100000 /tmp/prune-run
 * </pre>
 */
final class PruneMeasurement {
  private PruneMeasurement() {}

  /** What one run measured. */
  record Figures(
      int ids,
      long filesBefore,
      long bytesBefore,
      long filesAfter,
      long bytesAfter,
      FileLockMaintenance.PruneReport report,
      Duration acquireAndRelease,
      Duration prune) {
    @Override
    public String toString() {
      return String.format(
          "%,d ids acquired and released once in %,d ms: %,d files, %,d bytes (apparent)%n"
              + "prune (clock 2 h ahead, olderThan 1 h) in %,d ms: %s%n"
              + "after: %,d files, %,d bytes (apparent)",
          ids,
          acquireAndRelease.toMillis(),
          filesBefore,
          bytesBefore,
          prune.toMillis(),
          report,
          filesAfter,
          bytesAfter);
    }
  }

  /** Runs the measurement in {@code directory}, which must exist and is best empty. */
  static Figures run(Path directory, int ids) throws IOException {
    return run(directory, ids, () -> {});
  }

  /** The same, calling {@code beforePrune} between the acquisitions and the prune. */
  static Figures run(Path directory, int ids, Runnable beforePrune) throws IOException {
    long start = System.nanoTime();
    try (FileLockProvider provider = TestProviders.open(directory, "watch=false")) {
      for (int i = 0; i < ids; i++) {
        LeaseGrant lease =
            provider.tryAcquire(request("account:" + i, Duration.ofSeconds(30))).orElseThrow();
        if (!provider.release(lease)) {
          throw new IllegalStateException("could not release " + lease);
        }
      }
    }
    Duration acquired = Duration.ofNanos(System.nanoTime() - start);
    long[] before = count(directory);
    beforePrune.run();
    start = System.nanoTime();
    FileLockMaintenance.PruneReport report =
        FileLockMaintenance.prune(
            directory,
            Duration.ofHours(1),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(2)),
            true,
            TestHooks.NONE);
    Duration pruned = Duration.ofNanos(System.nanoTime() - start);
    long[] after = count(directory);
    return new Figures(ids, before[0], before[1], after[0], after[1], report, acquired, pruned);
  }

  /** Files and their added-up sizes. */
  static long[] count(Path directory) throws IOException {
    long files = 0;
    long bytes = 0;
    try (Stream<Path> list = Files.list(directory)) {
      for (Path file : (Iterable<Path>) list::iterator) {
        files++;
        bytes += Files.size(file);
      }
    }
    return new long[] {files, bytes};
  }

  /**
   * Runs the measurement: {@code PruneMeasurement IDS DIRECTORY} (the directory is created; it
   * should not exist or be empty). Prints the figures and {@code du -sk} of the directory before
   * and after pruning.
   */
  public static void main(String[] args) throws Exception {
    int ids = Integer.parseInt(args[0]);
    Path directory = Files.createDirectories(Path.of(args[1]).toAbsolutePath());
    try (Stream<Path> list = Files.list(directory)) {
      if (list.findAny().isPresent()) {
        throw new IllegalArgumentException(directory + " is not empty");
      }
    }
    Figures figures =
        run(directory, ids, () -> System.out.println("du -sk before prune: " + du(directory)));
    System.out.println(figures);
    System.out.println("du -sk after prune: " + du(directory));
  }

  private static String du(Path directory) {
    try {
      Process du = new ProcessBuilder("du", "-sk", directory.toString()).start();
      String out = new String(du.getInputStream().readAllBytes()).strip();
      du.waitFor();
      return out;
    } catch (IOException e) {
      return "(du failed: " + e + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }
}
