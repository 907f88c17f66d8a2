package dev.locksmith.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs a harness's transfers in child JVMs ({@link TransferContender} as their main class), each
 * with its own engine over a provider URL: starts them, tells them all to go once every one is
 * ready, and waits for them to exit.
 */
final class TransfersInChildJvms {
  private static final String[] CHILD_OPTIONS = {"-Xmx128m", "-XX:TieredStopAtLevel=1"};

  private TransfersInChildJvms() {}

  /**
   * Starts {@code processes} children through {@code url}, their output in {@code workDir}, and
   * kills those still running when {@code deadline} has passed since the start.
   */
  static TransferRun run(
      String url, Path workDir, TransferPlan plan, int processes, Duration deadline)
      throws InterruptedException {
    List<ChildJvm> children = new ArrayList<>();
    WarmUps warmUps = new WarmUps();
    List<Integer> exitCodes = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    ExecutorService readers = Executors.newFixedThreadPool(processes, TransferHarness::daemon);
    long started = System.nanoTime();
    long end = started + deadline.toNanos();
    long go;
    try {
      for (int i = 0; i < processes; i++) {
        Path log = workDir.resolve("transfers-" + i + ".out");
        logs.add(log);
        List<String> args = new ArrayList<>(List.of(url, Integer.toString(i)));
        args.addAll(plan.toArgs());
        ChildJvm child =
            ChildJvm.builder(TransferContender.class)
                .jvmOptions(CHILD_OPTIONS)
                .args(args)
                .output(log)
                .pipeStdin()
                .pipeStdout()
                .start();
        children.add(child);
        CompletableFuture<TransferContender.WarmUp> warmUp = warmUps.add();
        readers.execute(() -> readReady(child, warmUp));
      }
      warmUps.awaitAll(end);
      go = System.nanoTime();
      for (ChildJvm child : children) {
        try {
          child.send("go");
        } catch (UncheckedIOException ended) {
          // it ended before the start: its exit code and records tell why
        }
      }
      for (ChildJvm child : children) {
        try {
          exitCodes.add(child.awaitExit(Duration.ofNanos(Math.max(0, end - System.nanoTime()))));
        } catch (IllegalStateException timedOut) { // killed by awaitExit
          exitCodes.add(-1);
        }
      }
    } finally {
      children.forEach(ChildJvm::close);
      readers.shutdownNow();
    }
    return new TransferRun(exitCodes, logs, started, go, warmUps);
  }

  /**
   * Reads a child's standard output: completes {@code warmUp} from its {@code ready} line (or fails
   * it at the end of the output without one), then drains the rest.
   */
  private static void readReady(
      ChildJvm child, CompletableFuture<TransferContender.WarmUp> warmUp) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(child.process().getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (!warmUp.isDone() && line.startsWith(TransferContender.READY + " ")) {
          warmUp.complete(TransferContender.WarmUp.parse(line));
        }
      }
    } catch (IOException | RuntimeException e) {
      warmUp.completeExceptionally(e);
    } finally {
      warmUp.completeExceptionally(new IllegalStateException(child + " ended before ready"));
    }
  }
}
