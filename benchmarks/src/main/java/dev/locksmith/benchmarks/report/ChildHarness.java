package dev.locksmith.benchmarks.report;

import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A harness main of another benchmark in the jar, run in a child JVM with a time bound; the report
 * quotes the log lines it prints that match {@code keep}.
 *
 * @param title the report's heading for it
 * @param className the main class
 * @param args its arguments
 * @param keep the text a quoted line contains
 * @param timeoutSeconds how long it may run before it is killed
 */
record ChildHarness(
    String title, String className, List<String> args, String keep, long timeoutSeconds) {
  private static final Logger LOG = LoggerFactory.getLogger(ChildHarness.class);

  /** The harnesses the report runs this way, when their class is in the jar. */
  static List<ChildHarness> known() {
    return List.of(
        new ChildHarness(
            "File provider hand-off between two JVMs (`FileProviderBenchmark handoff 200 5`)",
            "dev.locksmith.benchmarks.file.FileProviderBenchmark",
            List.of("handoff", "200", "5"),
            "hand-off",
            180));
  }

  /** Whether the class is in the jar. */
  boolean present() {
    try {
      Class.forName(className, false, ChildHarness.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Runs it; the matching lines, or a one-line account of how it failed. */
  List<String> run() throws InterruptedException {
    Path log;
    try {
      log = Files.createTempFile("locksmith-report-child-", ".log");
    } catch (IOException e) {
      return List.of("could not create its log file: " + e.getMessage());
    }
    try {
      return run(log);
    } finally {
      try {
        Files.deleteIfExists(log);
      } catch (IOException e) {
        LOG.warn("could not delete {}: {}", log, e.getMessage());
      }
    }
  }

  private List<String> run(Path log) throws InterruptedException {
    ChildJvm child;
    try {
      child = ChildJvm.builder(className).args(args).output(log).start();
    } catch (UncheckedIOException e) {
      return List.of("could not start: " + Objects.requireNonNull(e.getCause()).getMessage());
    }
    try (child) {
      Process process = child.process();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        child.kill();
        return List.of("killed after " + timeoutSeconds + " s without finishing");
      }
      String text = readAll(log);
      List<String> kept = text.lines().filter(line -> line.contains(keep)).toList();
      if (process.exitValue() != 0 || kept.isEmpty()) {
        LOG.warn("{} exited {}:\n{}", className, process.exitValue(), text);
        Optional<String> last = text.lines().reduce((a, b) -> b);
        return List.of("exited " + process.exitValue() + "; last line: " + last.orElse("(none)"));
      }
      return kept;
    }
  }

  private static String readAll(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(output lost: " + e.getMessage() + ")";
    }
  }
}
