package dev.locksmith.cli.demo;

import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.tcp.server.LockServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/** One run of {@code locksmith demo}: starts the workers, draws the timeline, judges the run. */
public final class DemoRun implements Callable<Integer> {
  private final @Nullable String url;
  private final int workers;
  private final int sections;
  private final Duration ttl;
  private final Duration work;
  private final boolean chaos;
  private final @Nullable Path dir;
  private final PrintWriter out;
  private final boolean ansi;

  /**
   * Describes a run; {@link #call()} performs it.
   *
   * @param url the provider URL, or null for a TCP lock server started in this process
   * @param workers how many worker JVMs
   * @param sections critical sections per worker
   * @param ttl the lease length
   * @param work time spent between reading and writing the ledger
   * @param chaos whether to pause one holder and kill another
   * @param dir where the ledger and event files go, or null for a temporary directory
   * @param out where the demo reports
   * @param ansi whether to color the report
   */
  public DemoRun(
      @Nullable String url,
      int workers,
      int sections,
      Duration ttl,
      Duration work,
      boolean chaos,
      @Nullable Path dir,
      PrintWriter out,
      boolean ansi) {
    this.url = url;
    this.workers = workers;
    this.sections = sections;
    this.ttl = ttl;
    this.work = chaos && work.compareTo(Duration.ofMillis(300)) < 0 ? Duration.ofMillis(300) : work;
    this.chaos = chaos;
    this.dir = dir;
    this.out = out;
    this.ansi = ansi;
  }

  /** Runs the demo; returns 0 when the verdict finds no violation, 1 otherwise. */
  @Override
  public Integer call() throws Exception {
    Path workDir =
        dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("locksmith-demo");
    LockServer server = null;
    String providerUrl = url;
    if (providerUrl == null) {
      server = LockServer.builder().port(0).dataDir(workDir.resolve("server")).build();
      providerUrl = "tcp://127.0.0.1:" + server.start();
    }
    List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
    // Ctrl-C during the demo: no worker is left behind, not even one stopped with SIGSTOP.
    Thread hook = new Thread(() -> processes.forEach(Process::destroyForcibly), "demo-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      Path ledger = workDir.resolve("ledger");
      Files.deleteIfExists(ledger);
      out.printf(
          "Locksmith demo: %d workers x %d sections on %s, ttl %s%s%n  ledger %s%n%n",
          workers,
          sections,
          providerUrl,
          ttl.toMillis() + "ms",
          chaos ? ", with chaos" : "",
          ledger);
      List<EventFile> files = new ArrayList<>();
      long start = System.nanoTime();
      for (int w = 0; w < workers; w++) {
        Path events = workDir.resolve("events-" + w);
        Files.deleteIfExists(events);
        files.add(new EventFile(events));
        processes.add(startWorker(providerUrl, w, ledger, events, workDir));
      }
      Timeline timeline = new Timeline(out, workers, ansi, start);
      timeline.header();
      Chaos faults = chaos ? new Chaos(processes, ttl, workers * sections, timeline) : null;
      List<DemoEvent> all = watch(processes, files, timeline, faults);
      int failed = 0;
      for (int w = 0; w < processes.size(); w++) {
        if ((faults == null || faults.killed() != w) && processes.get(w).exitValue() != 0) {
          failed++;
          out.printf("  worker %d failed; see %s%n", w, workDir.resolve("worker-" + w + ".log"));
        }
      }
      String text = new FencedFile(ledger).read().value().strip();
      Verdict verdict = Verdict.of(all, text.isEmpty() ? 0 : Long.parseLong(text), failed);
      report(verdict);
      return verdict.passed() ? 0 : 1;
    } finally {
      for (Process process : processes) {
        process.destroyForcibly(); // SIGKILL ends a stopped process too
      }
      if (server != null) {
        server.close();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running already.
      }
    }
  }

  private Process startWorker(
      String providerUrl, int worker, Path ledger, Path events, Path workDir) throws IOException {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            DemoWorker.class.getName(),
            providerUrl,
            Integer.toString(worker),
            Integer.toString(sections),
            ledger.toString(),
            events.toString(),
            ttl.toMillis() + "ms",
            work.toString());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(workDir.resolve("worker-" + worker + ".log").toFile())
        .start();
  }

  /** Follows the workers' events until every worker has exited, injecting faults under chaos. */
  private List<DemoEvent> watch(
      List<Process> processes, List<EventFile> files, Timeline timeline, @Nullable Chaos faults)
      throws IOException, InterruptedException {
    List<DemoEvent> all = new ArrayList<>();
    while (true) {
      boolean running = processes.stream().anyMatch(Process::isAlive);
      List<DemoEvent> batch = new ArrayList<>();
      for (EventFile file : files) {
        batch.addAll(file.readNew());
      }
      batch.sort(Comparator.comparingLong(DemoEvent::nanos));
      for (DemoEvent event : batch) {
        timeline.show(event);
        all.add(event);
        if (faults != null) {
          faults.seen(event);
        }
      }
      if (faults != null) {
        faults.tick();
      }
      if (!running && batch.isEmpty()) {
        return all;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // the timeline's refresh interval
    }
  }

  private void report(Verdict verdict) {
    out.println();
    out.println("Verdict");
    out.printf("  critical sections run      %d%n", verdict.sections());
    out.printf("  writes accepted            %d%n", verdict.written());
    out.printf("  overlaps                   %d%n", verdict.overlaps());
    out.printf("  lost updates               %d%n", verdict.lostUpdates());
    out.printf(
        "  fencing-token order        %s%n",
        verdict.tokenViolations() == 0 ? "increasing" : verdict.tokenViolations() + " violations");
    out.printf("  late writes refused        %d%n", verdict.refused());
    out.printf(
        "  hand-off latency p50/p99   %s / %s%n",
        verdict.percentile(0.5), verdict.percentile(0.99));
    out.println(
        verdict.passed() ? "  PASSED: the lock held" : "  FAILED: see the violations above");
    out.flush();
  }

  /** A worker's event file, read as it grows. */
  private static final class EventFile {
    private final Path path;
    private int linesRead;

    EventFile(Path path) {
      this.path = path;
    }

    List<DemoEvent> readNew() throws IOException {
      if (!Files.exists(path)) {
        return List.of();
      }
      String content = Files.readString(path, StandardCharsets.UTF_8);
      List<String> lines = content.lines().toList();
      List<DemoEvent> events = new ArrayList<>();
      // The last line may be half written; it is read on the next pass.
      int complete = content.endsWith("\n") ? lines.size() : lines.size() - 1;
      for (int i = linesRead; i < complete; i++) {
        events.add(DemoEvent.parse(lines.get(i)));
      }
      linesRead = Math.max(linesRead, complete);
      return events;
    }
  }
}
