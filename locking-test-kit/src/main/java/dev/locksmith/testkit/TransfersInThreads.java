package dev.locksmith.testkit;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a harness's transfers in this JVM: one engine per "process" over one provider, each on a
 * thread of its own that runs {@link TransferContender} with its threads; all start their transfers
 * together once every one is ready.
 */
final class TransfersInThreads {
  private TransfersInThreads() {}

  /**
   * Runs {@code processes} engines over {@code provider} (which stays open), giving up on those
   * still running when {@code deadline} has passed since the start.
   */
  static TransferRun run(LockProvider provider, TransferPlan plan, int processes, Duration deadline)
      throws InterruptedException {
    ExecutorService engines = Executors.newFixedThreadPool(processes, TransferHarness::daemon);
    List<Future<Integer>> runs = new ArrayList<>();
    WarmUps warmUps = new WarmUps();
    CountDownLatch start = new CountDownLatch(1);
    List<Integer> exitCodes = new ArrayList<>();
    long started = System.nanoTime();
    long end = started + deadline.toNanos();
    long go;
    try {
      for (int i = 0; i < processes; i++) {
        int process = i;
        CompletableFuture<TransferContender.WarmUp> warmUp = warmUps.add();
        TransferContender.StartGate gate =
            outcome -> {
              warmUp.complete(outcome);
              if (!start.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("no word to start before the deadline");
              }
            };
        runs.add(
            engines.submit(
                () -> {
                  try (Locksmith locksmith =
                      Locksmith.builder().defaultProvider(provider).build()) {
                    return TransferContender.run(locksmith, plan, process, gate);
                  } finally {
                    warmUp.completeExceptionally(
                        new IllegalStateException("process " + process + " ended before ready"));
                  }
                }));
      }
      warmUps.awaitAll(end);
      go = System.nanoTime();
      start.countDown();
      for (Future<Integer> run : runs) {
        exitCodes.add(exitCode(run, end));
      }
    } finally {
      engines.shutdownNow();
    }
    return new TransferRun(exitCodes, List.of(), started, go, warmUps);
  }

  private static int exitCode(Future<Integer> run, long end) throws InterruptedException {
    try {
      return run.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return -1;
    } catch (ExecutionException e) {
      Objects.requireNonNullElse(e.getCause(), e).printStackTrace();
      return 2;
    }
  }
}
