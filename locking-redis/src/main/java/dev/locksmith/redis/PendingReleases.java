package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The provider's releases sent and not yet answered, by lock id, so that a later call on the same
 * lock is applied by Redis after them (see {@link RedisLockProvider#releaseAsync}). An entry leaves
 * when its stage completes, from whichever reply comes first: the release script's own, or that of
 * an acquire that folded the release in.
 */
final class PendingReleases {
  /** One release in flight: the lease, the release id its script carries, and its outcome. */
  static final class Pending {
    private final LeaseGrant lease;
    private final String releaseId;
    private final CompletableFuture<Boolean> outcome = new CompletableFuture<>();

    /** An earlier release of the same lock id still in flight when this one was sent, if any. */
    private final @Nullable Pending earlier;

    Pending(LeaseGrant lease, String releaseId, @Nullable Pending earlier) {
      this.lease = lease;
      this.releaseId = releaseId;
      this.earlier = earlier;
    }

    LeaseGrant lease() {
      return lease;
    }

    String releaseId() {
      return releaseId;
    }

    CompletableFuture<Boolean> outcome() {
      return outcome;
    }

    /** Completes the release with {@code released}, unless a reply completed it already. */
    void answer(boolean released) {
      outcome.complete(released);
    }

    /** Fails the release with {@code error}, unless a reply completed it already. */
    void fail(Throwable error) {
      outcome.completeExceptionally(error);
    }

    /**
     * Completes the release from {@code reply}, its release script's stage, unless a reply
     * completed it already: with its outcome, or failed with its failure.
     */
    void answerFrom(CompletionStage<Boolean> reply) {
      reply.whenComplete(
          (released, error) -> {
            if (error == null) {
              answer(released);
            } else {
              fail(
                  error instanceof CompletionException && error.getCause() != null
                      ? error.getCause()
                      : error);
            }
          });
    }

    /** Waits, without reacting to interrupts, until the release and those before it completed. */
    void awaitAnswered() {
      for (@Nullable Pending p = this; p != null; p = p.earlier) {
        p.outcome.handle((released, error) -> null).join();
      }
    }
  }

  private final Map<String, Pending> newest = new ConcurrentHashMap<>();
  private final Set<Pending> all = ConcurrentHashMap.newKeySet();

  /** Registers a release of {@code lease} with {@code releaseId}, before its script is sent. */
  Pending register(LeaseGrant lease, String releaseId) {
    String lockId = lease.lockId();
    Pending pending =
        newest.compute(
            lockId,
            (id, previous) ->
                new Pending(
                    lease,
                    releaseId,
                    previous == null || previous.outcome.isDone() ? null : previous));
    all.add(pending);
    pending.outcome.whenComplete(
        (released, error) -> {
          all.remove(pending);
          newest.remove(lockId, pending);
        });
    return pending;
  }

  /**
   * The release to fold into the next acquire of {@code lockId}, or {@code null} when none is in
   * flight. Releases of that id sent before it (a rare overlap) are awaited first, so that only the
   * newest one needs folding.
   */
  @Nullable Pending toFold(String lockId) {
    Pending pending = newest.get(lockId);
    if (pending == null || pending.outcome.isDone()) {
      return null;
    }
    if (pending.earlier != null) {
      pending.earlier.awaitAnswered();
    }
    return pending;
  }

  /** Waits until every release of {@code lockIds} in flight now has been answered. */
  void awaitAnswered(Collection<String> lockIds) {
    if (newest.isEmpty()) {
      return;
    }
    for (String lockId : lockIds) {
      Pending pending = newest.get(lockId);
      if (pending != null) {
        pending.awaitAnswered();
      }
    }
  }

  /** How many releases are in flight. */
  int size() {
    return all.size();
  }

  /**
   * Waits until {@code deadline} ({@link System#nanoTime()}) at the latest for every release in
   * flight, then fails those still unanswered (see {@link #failUnanswered}); returns how many were
   * failed.
   */
  int drain(long deadline, String description) throws InterruptedException {
    List<Pending> waiting = new ArrayList<>(all);
    if (waiting.isEmpty()) {
      return 0;
    }
    CompletableFuture<?>[] stages = new CompletableFuture<?>[waiting.size()];
    for (int i = 0; i < stages.length; i++) {
      stages[i] = waiting.get(i).outcome.handle((released, error) -> null);
    }
    try {
      CompletableFuture.allOf(stages)
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return 0;
    } catch (ExecutionException | TimeoutException e) {
      return failUnanswered(description);
    }
  }

  /**
   * Fails every release in flight with a {@link LockProviderException} naming {@code description}
   * and the lock ("provider closed"); returns how many were failed.
   */
  int failUnanswered(String description) {
    int failed = 0;
    for (Pending pending : new ArrayList<>(all)) {
      if (pending.outcome.completeExceptionally(
          new LockProviderException(
              "Redis "
                  + description
                  + " was closed before it got the answer to the release of lock "
                  + LockIdText.quoted(pending.lease.lockId())
                  + " (provider closed); the lease ends by its TTL at the latest"))) {
        failed++;
      }
    }
    return failed;
  }
}
