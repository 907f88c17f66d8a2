package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The releases sent without waiting for their replies ({@link TcpLockProvider#releaseAsync}) and
 * not yet answered, so that closing the provider can first wait for them.
 */
final class PendingReleases {
  private final Set<CompletableFuture<Boolean>> pending = ConcurrentHashMap.newKeySet();

  /** Tracks {@code stage} until it completes. */
  void add(CompletableFuture<Boolean> stage) {
    pending.add(stage);
    stage.whenComplete((released, failure) -> pending.remove(stage));
  }

  /** How many releases are unanswered. */
  int size() {
    return pending.size();
  }

  /**
   * Waits up to {@code nanos} for every unanswered release, those sent meanwhile too, then fails
   * those still unanswered with {@code failure}. It waits through interrupts, as every call but a
   * wait does (the interrupt is kept for the caller).
   *
   * @return how many were failed
   */
  int awaitThenFail(long nanos, LockProviderException failure) {
    long deadline = System.nanoTime() + nanos;
    boolean interrupted = false;
    try {
      while (deadline - System.nanoTime() > 0) {
        // The set empties itself as releases complete, on the I/O thread.
        Iterator<CompletableFuture<Boolean>> unanswered = pending.iterator();
        if (!unanswered.hasNext()) {
          break;
        }
        CompletableFuture<Boolean> stage = unanswered.next();
        try {
          stage.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CancellationException e) {
          // Answered with a failure: done.
        } catch (TimeoutException e) {
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          continue;
        }
        // Answered; its own removal may come a moment later, on the thread that completed it.
        pending.remove(stage);
      }
      int failed = 0;
      for (CompletableFuture<Boolean> stage : List.copyOf(pending)) {
        if (stage.completeExceptionally(failure)) {
          failed++;
        }
      }
      return failed;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
