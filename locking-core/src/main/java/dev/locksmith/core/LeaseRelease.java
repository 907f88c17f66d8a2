package dev.locksmith.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The release of one {@link ActiveLease}, from the drop of its last hold to the provider's answer.
 * A provider that answers on the releasing thread (an in-process store, a provider with the SPI's
 * default {@code releaseAsync}, or a minimum hold shortened) is answered there, the keeper no
 * longer watching the lease; otherwise the release is sent and the lease stays kept (its deadline
 * watched, a locked call still counted as running, closing the engine waiting for it) until the
 * provider confirms the release or the deadline passes.
 */
final class LeaseRelease {
  /** Where a lease stands for its keeper. */
  enum Phase {
    /** Not released: watched, renewed, lost at its deadline. */
    HELD,
    /** Its release was sent and is awaited: watched until the answer or the deadline. */
    AWAITED,
    /** Released and answered, or released on its holder's thread: nothing left to watch. */
    DONE
  }

  // RELEASED: the holder and every retained result are done, the release has been sent
  // (RELEASING until ENDED). ENDED: the release was confirmed, or the deadline passed while it was
  // awaited; the released event has been told. PENDING: the release is counted among the engine's
  // pending releases. SENT: the release goes through releaseAsync, and the keeper keeps the lease
  // until it is answered; without it a released lease is ended on its holder's thread and no longer
  // kept. Flags of one int rather than atomic objects: a release is made per call.
  private static final int RELEASED = 1;
  private static final int ENDED = 2;
  private static final int PENDING = 4;
  private static final int SENT = 8;
  private static final VarHandle STATE =
      FieldHandles.of(MethodHandles.lookup(), "state", int.class);

  private final ActiveLease lease;
  private final LeaseCalls calls;
  private final Listeners listeners;
  // The lease's lock on its provider calls, so that a late renewal cannot undo a release.
  private final ReentrantLock providerCalls;
  // Orders the release's beginning against a loss found on another thread (unlessStarted).
  private final ReentrantLock beginning = new ReentrantLock();

  @SuppressWarnings("unused") // through STATE
  private volatile int state;

  // How long the lease was held when its release began, in nanoseconds (a primitive: no
  // allocation).
  private volatile long heldNanos;

  LeaseRelease(
      ActiveLease lease, LeaseCalls calls, Listeners listeners, ReentrantLock providerCalls) {
    this.lease = lease;
    this.calls = calls;
    this.listeners = listeners;
    this.providerCalls = providerCalls;
  }

  /** Where the lease stands, read at once so that its parts agree. */
  Phase phase() {
    int flags = state;
    if ((flags & ENDED) != 0 || (flags & (RELEASED | SENT)) == RELEASED) {
      return Phase.DONE;
    }
    return (flags & RELEASED) != 0 ? Phase.AWAITED : Phase.HELD;
  }

  /** Whether the release has begun: the lease is no longer its holder's. */
  boolean started() {
    return has(RELEASED);
  }

  /**
   * Reports a loss found on another thread (the keeper at the deadline, the provider, a renewal)
   * unless the release has begun, one before the other: the release's events then follow the
   * loss's, or there is no loss to tell. Never waits: when another thread is beginning the release
   * or reporting a loss right now, this one has nothing to add.
   *
   * @return whether {@code report} ran
   */
  boolean unlessStarted(Runnable report) {
    if (!beginning.tryLock()) {
      return false;
    }
    try {
      if (started()) {
        return false;
      }
      report.run();
      return true;
    } finally {
      beginning.unlock();
    }
  }

  /**
   * Releases the lease, once: skipped while the provider is down, answered on this thread when the
   * provider answers here, else sent; an answer already there when the stage is returned is taken
   * at once.
   *
   * @param held how long the lease was held, in nanoseconds
   * @param holdLeft how much of its minimum hold is still owed, in nanoseconds
   */
  void start(long held, long holdLeft) {
    boolean skip = calls.skipRelease() || lostDuringCall();
    boolean here = skip || calls.endsAtOnce(holdLeft);
    this.heldNanos = held;
    // A release on this thread counts as pending from before its flag is set, which the keeper's
    // sweep may see and stop watching the lease on (a locked call then no longer counts as
    // running), until it is told: closing the engine waits for it before it closes the providers.
    LeaseKeeper keeping = here ? lease.keeper() : null;
    if (keeping != null) {
      keeping.pendingReleases().started();
    }
    try {
      boolean first;
      // Waits for a loss being told on another thread (unlessStarted), so its event comes first.
      beginning.lock();
      try {
        first = setFlag(here ? RELEASED : RELEASED | SENT);
      } finally {
        beginning.unlock();
      }
      if (!first) {
        return;
      }
      if (here) {
        releaseHere(skip, holdLeft);
        return;
      }
    } finally {
      if (keeping != null) {
        keeping.pendingReleases().ended();
      }
    }
    CompletionStage<Boolean> stage;
    providerCalls.lock();
    try {
      stage = calls.endAsync(lease.grant());
    } finally {
      providerCalls.unlock();
    }
    if (stage instanceof CompletableFuture<Boolean> done && done.isDone()) {
      completedNow(done);
      return;
    }
    LeaseKeeper k = lease.keeper();
    if (k == null) {
      completedNow(stage.toCompletableFuture());
      return;
    }
    k.pendingReleases().started();
    if (!setFlagUnless(PENDING, ENDED)) {
      // The deadline ended it while the stage was being returned, and its answer may never come.
      k.pendingReleases().ended();
      return;
    }
    if (listeners.allowsIoThreads()) {
      // Nothing here blocks, and no listener minds the provider's thread: no hand-over.
      stage.whenComplete((late, failure) -> confirmedLater(late, failure));
    } else {
      stage.whenComplete((late, failure) -> k.complete(() -> confirmedLater(late, failure)));
    }
  }

  /**
   * Whether the lease was lost while a renewal of it is still in flight, its store perhaps not
   * answering: its release is skipped rather than sent after that call, which may last the client's
   * whole timeout while the holder, told of the loss, waits in {@code close()}. The renewal's
   * answer frees what it renewed ({@link LeaseCalls#releaseUnused}); otherwise the lease ends by
   * its TTL.
   */
  private boolean lostDuringCall() {
    if (!lease.isLost() || !providerCalls.isLocked() || providerCalls.isHeldByCurrentThread()) {
      return false;
    }
    calls.skippedAfterLoss();
    return true;
  }

  /**
   * The deadline passed while the release was awaited: the lease has ended on the store either way,
   * so it is released, not lost, and the late answer is ignored. The keeper stops watching it.
   */
  void endByTtl() {
    if (setFlag(ENDED)) {
      calls.endedByTtl();
      listeners.released(lease.event(), Duration.ofNanos(heldNanos));
      uncountPending();
    }
  }

  /** A release answered after it was sent: its outcome, then its pending count dropped. */
  private void confirmedLater(@Nullable Boolean answer, @Nullable Throwable error) {
    try {
      confirmed(answer, error);
    } finally {
      uncountPending();
    }
  }

  /**
   * Ends the lease on this thread, unwatched first so that nothing else ends it meanwhile: skipped
   * while the provider is down, else released or shortened to its minimum hold.
   */
  private void releaseHere(boolean skip, long holdLeft) {
    LeaseKeeper k = lease.keeper();
    if (k != null) {
      k.stopWatching(lease);
    }
    try {
      Boolean answer = Boolean.TRUE;
      RuntimeException error = null;
      if (!skip) {
        providerCalls.lock();
        try {
          answer = calls.endNow(lease.grant(), holdLeft);
        } catch (RuntimeException e) {
          error = e;
        } finally {
          providerCalls.unlock();
        }
      }
      report(answer, error);
    } finally {
      if (k != null) {
        k.callEnded(lease);
      }
    }
  }

  /** Takes this lease's release off the engine's pending ones, once. */
  private void uncountPending() {
    LeaseKeeper k = lease.keeper();
    if (k != null && clearFlag(PENDING)) {
      k.pendingReleases().ended();
    }
  }

  private void completedNow(CompletableFuture<Boolean> done) {
    Boolean answer;
    Throwable error = null;
    try {
      answer = done.join();
    } catch (CompletionException | CancellationException e) {
      answer = null;
      error = e;
    }
    confirmed(answer, error);
  }

  /**
   * The provider answered the release: tells the outcome as a synchronous release always told it, a
   * loss or an error, then the release; nothing when the deadline had already ended the lease.
   */
  private void confirmed(@Nullable Boolean answer, @Nullable Throwable error) {
    if (!setFlag(ENDED)) {
      return;
    }
    LeaseKeeper k = lease.keeper();
    if (k != null) {
      k.stopWatching(lease);
    }
    try {
      report(answer, error);
    } finally {
      if (k != null) {
        k.callEnded(lease);
      }
    }
  }

  /** Tells how the release ended: a loss or an error as it was answered, then the release. */
  private void report(@Nullable Boolean answer, @Nullable Throwable error) {
    if (!calls.ended(answer, error, lease.event())) {
      lease.markLost(LossReasons.GONE_AT_RELEASE);
    }
    listeners.released(lease.event(), Duration.ofNanos(heldNanos));
  }

  private boolean has(int flag) {
    return (state & flag) != 0;
  }

  /** Sets a flag; {@code true} when this set it. */
  private boolean setFlag(int flag) {
    return setFlagUnless(flag, 0);
  }

  /** Sets a flag unless it or any of {@code blocking} is set; {@code true} when this set it. */
  private boolean setFlagUnless(int flag, int blocking) {
    int now;
    do {
      now = state;
      if ((now & (flag | blocking)) != 0) {
        return false;
      }
    } while (!STATE.compareAndSet(this, now, now | flag));
    return true;
  }

  /** Clears a flag; {@code true} when this cleared it. */
  private boolean clearFlag(int flag) {
    int now;
    do {
      now = state;
      if ((now & flag) == 0) {
        return false;
      }
    } while (!STATE.compareAndSet(this, now, now & ~flag));
    return true;
  }
}
