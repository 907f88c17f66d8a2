package dev.locksmith.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The warm-ups of one harness run's processes: one future per process, completed when it reports
 * ready and failed when it ends before.
 */
final class WarmUps {
  private final List<CompletableFuture<TransferContender.WarmUp>> futures = new ArrayList<>();

  /** A new process's warm-up, not yet done. */
  CompletableFuture<TransferContender.WarmUp> add() {
    CompletableFuture<TransferContender.WarmUp> warmUp = new CompletableFuture<>();
    futures.add(warmUp);
    return warmUp;
  }

  /** Waits until every warm-up is done (in whatever way) or {@code end} passes. */
  void awaitAll(long end) throws InterruptedException {
    try {
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // a process that failed or never became ready shows in its exit code and records
    }
  }

  /** The warm-ups that completed normally so far, in process order. */
  List<TransferContender.WarmUp> completed() {
    List<TransferContender.WarmUp> completed = new ArrayList<>();
    for (CompletableFuture<TransferContender.WarmUp> warmUp : futures) {
      if (warmUp.isDone() && !warmUp.isCompletedExceptionally()) {
        completed.add(warmUp.join());
      }
    }
    return completed;
  }
}
