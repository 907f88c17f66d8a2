package dev.locksmith.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts N JVMs that contend for one lock through a provider URL, each doing read-modify-write
 * sections on a shared counter file, then checks the combined history: no overlap, fencing tokens
 * increasing with start time, and no lost update.
 *
 * <pre>{@code
 * MultiProcessHarness.Result result = MultiProcessHarness.run("tcp://127.0.0.1:" + port, 4, 25, dir);
 * assertThat(result.violations()).isEmpty();
 * }</pre>
 *
 * <p>Child JVMs get the class path of the calling JVM, so the provider under test is on it.
 */
public final class MultiProcessHarness {
  private static final String[] CHILD_OPTIONS = {"-Xmx128m", "-XX:TieredStopAtLevel=1"};

  private MultiProcessHarness() {}

  /**
   * The outcome of a run.
   *
   * @param history the checked history of every process's sections
   * @param expected how many sections should have run
   * @param counter the counter file's final value; lower than {@code expected} means lost updates
   * @param exitCodes each child's exit code
   */
  public record Result(History history, int expected, long counter, List<Integer> exitCodes) {

    /**
     * Every violation: history violations, lost updates, and failed children.
     *
     * @return every violation: history violations, lost updates, and failed children
     */
    public List<String> violations() {
      List<String> all = new ArrayList<>(history.violations());
      if (counter != expected) {
        all.add("lost updates: counter is " + counter + ", expected " + expected);
      }
      if (history.sections().size() != expected) {
        all.add("recorded " + history.sections().size() + " sections, expected " + expected);
      }
      for (int i = 0; i < exitCodes.size(); i++) {
        if (exitCodes.get(i) != 0) {
          all.add("contender " + i + " exited with " + exitCodes.get(i));
        }
      }
      return all;
    }
  }

  /**
   * Runs {@code processes} contenders of {@code iterations} sections each, with a 10 s TTL.
   *
   * @param url the provider URL every JVM uses
   * @param processes how many JVMs
   * @param iterations critical sections per JVM
   * @param workDir where the JVMs write their logs and records
   * @return runs {@code processes} contenders of {@code iterations} sections each, with a 10 s TTL
   * @throws IOException when an I/O operation fails
   * @throws InterruptedException when interrupted
   */
  public static Result run(String url, int processes, int iterations, Path workDir)
      throws IOException, InterruptedException {
    return run(
        url,
        "harness-" + System.nanoTime(),
        processes,
        iterations,
        Duration.ofSeconds(10),
        workDir);
  }

  /**
   * Runs contenders on the given lock id and TTL.
   *
   * @param url the provider URL every JVM uses
   * @param lockId the contended lock
   * @param processes how many JVMs
   * @param iterations critical sections per JVM
   * @param ttl the lease length
   * @param workDir where the JVMs write their logs and records
   * @return runs contenders on the given lock id and TTL
   * @throws IOException when an I/O operation fails
   * @throws InterruptedException when interrupted
   */
  public static Result run(
      String url, String lockId, int processes, int iterations, Duration ttl, Path workDir)
      throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path counter = workDir.resolve("counter");
    Files.deleteIfExists(counter);
    List<ChildJvm> children = new ArrayList<>();
    List<Path> recordFiles = new ArrayList<>();
    List<Integer> exitCodes = new ArrayList<>();
    try {
      for (int i = 0; i < processes; i++) {
        Path records = workDir.resolve("records-" + i);
        Files.deleteIfExists(records);
        recordFiles.add(records);
        children.add(
            contender(workDir.resolve("contender-" + i + ".log"))
                .args(
                    url,
                    lockId,
                    Integer.toString(iterations),
                    counter.toString(),
                    records.toString(),
                    ttl.toString())
                .start());
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos(); // for all of them
      for (ChildJvm child : children) {
        try {
          exitCodes.add(
              child.awaitExit(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        } catch (IllegalStateException timedOut) { // killed by awaitExit
          exitCodes.add(-1);
        }
      }
    } finally {
      children.forEach(ChildJvm::close);
    }
    List<CriticalSection> sections = new ArrayList<>();
    for (Path records : recordFiles) {
      if (Files.exists(records)) {
        for (String line : Files.readAllLines(records, StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            sections.add(CriticalSection.parse(line));
          }
        }
      }
    }
    String text = Files.exists(counter) ? Files.readString(counter).strip() : "0";
    return new Result(
        History.check(sections), processes * iterations, Long.parseLong(text), exitCodes);
  }

  /**
   * Starts a JVM running {@code mainClass} with this JVM's class path, its output going to {@code
   * log}. See {@link ChildJvm} for more control.
   *
   * @param mainClass the class whose main method runs
   * @param log where its output goes
   * @param args its arguments
   * @return the started process
   * @throws IOException when an I/O operation fails
   */
  public static Process startJvm(String mainClass, Path log, String... args) throws IOException {
    try {
      return ChildJvm.builder(mainClass)
          .jvmOptions(CHILD_OPTIONS)
          .args(args)
          .output(log)
          .start()
          .process();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static ChildJvmBuilder contender(Path log) {
    return ChildJvm.builder(Contender.class).jvmOptions(CHILD_OPTIONS).output(log);
  }
}
