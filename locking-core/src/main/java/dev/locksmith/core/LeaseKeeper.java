package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every held lease: renews each when two thirds of its TTL are left, and reports a lease lost
 * at its local deadline when that passes without a confirmed renewal, whether or not a renewal call
 * is still in flight.
 *
 * <p>One daemon thread sweeps all watched leases every {@link #TICK_MILLIS} ms, checking each
 * lease's renewal time and deadline, rather than scheduling a task per lease: taking and releasing
 * a lock costs a map insertion and removal, and a renewal starts at most a tick late. A deadline
 * that falls before the next sweep gets a one-off check at the deadline itself, so a loss is
 * reported at the deadline, not up to a tick after it. The sweep runs only while some lease is
 * watched or being acquired: the first lease watched (or acquisition started) starts it, the sweep
 * that finds none left stops it, and the thread then sleeps until a lease is watched or an
 * acquisition starts again. The leases due in a sweep are renewed together per provider ({@link
 * RenewalLanes}), at most one batch in flight per provider, on a pool of one daemon thread per
 * provider with leases to renew, so a provider that hangs delays only its own leases.
 *
 * <p>The sweep is also the engine's evidence that this process runs: a lease whose provider names a
 * pause limit ({@link dev.locksmith.core.spi.LockProvider#pauseLimit}) is lost once the keeper has
 * stood still for longer since the request that granted the lease went out, which the lease's own
 * checks see before the first sweep after the stop. The last {@link SweepGaps#STOPS_KEPT} stops are
 * remembered, so a lease granted just before a stop and watched only after the sweep that ended it
 * still sees it; the sweep runs through acquisitions, so a stop inside the provider call, between
 * the grant and its answer, is one it sees.
 */
final class LeaseKeeper implements AutoCloseable {
  static final long TICK_MILLIS = 10;
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final int RECENTLY_LOST = 1024;

  private final Ticker ticker;
  private final ConcurrentHashMap<String, ActiveLease> leases = new ConcurrentHashMap<>();
  // Owner tokens a provider reported lost before the engine started keeping their lease (the loss
  // raced the grant's return), with when; bounded by pruning the oldest.
  private final ConcurrentHashMap<String, Long> lostBeforeWatched = new ConcurrentHashMap<>();
  // The periodic sweep while leases are watched or acquired, else null. Set and cleared under
  // sweepLock only; read without it by watch's fast path.
  private volatile @Nullable ScheduledFuture<?> sweeping;
  private final SweepGaps gaps;
  private final ReentrantLock sweepLock = new ReentrantLock();
  private final InFlight runningCalls = new InFlight();
  // The leases of locked calls counted in runningCalls: each is counted out once.
  private final Set<ActiveLease> calls = ConcurrentHashMap.newKeySet();
  private final AtomicInteger acquisitions = new AtomicInteger();
  private final InFlight pendingReleases = new InFlight();
  private final EngineThreads threads;
  private final RenewalLanes lanes;
  private volatile boolean closed;

  /**
   * @param renewalExecutor runs renewals, or {@code null} for the engine's own pool of daemon
   *     threads (closed with the keeper)
   */
  LeaseKeeper(Ticker ticker, @Nullable Executor renewalExecutor) {
    this.ticker = ticker;
    this.threads = new EngineThreads(renewalExecutor);
    this.lanes = new RenewalLanes(threads.renewers(), threads.ownRenewers(), ticker);
    this.gaps = new SweepGaps(ticker.read());
  }

  /** Where locks for reactive results are taken (see {@link EngineThreads#reactiveAcquirers}). */
  Executor reactiveAcquirers() {
    return threads.reactiveAcquirers();
  }

  void watch(ActiveLease lease) {
    leases.put(lease.ownerToken(), lease);
    if (lease.isCall() && calls.add(lease)) {
      runningCalls.started();
    }
    if (!lostBeforeWatched.isEmpty() && lostBeforeWatched.remove(lease.ownerToken()) != null) {
      lease.markLost(
          "the provider reported it lost as it was granted (" + lease.providerDescription() + ")");
    }
    // After the insertion: a sweep that stops for want of leases checks the map again after
    // clearing the future, so either it sees this lease or this sees no sweep and starts one.
    if (sweeping == null) {
      startSweeping();
    }
  }

  /**
   * An acquisition starts: the sweep runs until {@link #acquisitionEnded}, so that the gaps it
   * measures (see {@link #longestStopSince}) cover the time between the grant and the lease being
   * watched. Call it first thing in a {@code try} whose {@code finally} ends it.
   */
  void acquisitionStarted() {
    acquisitions.incrementAndGet();
    if (sweeping == null) {
      startSweeping();
    }
  }

  /** Ends what {@link #acquisitionStarted} started. */
  void acquisitionEnded() {
    acquisitions.decrementAndGet();
  }

  /** Whether no lease is watched and none is being acquired: the sweep has nothing to do. */
  private boolean idle() {
    return leases.isEmpty() && acquisitions.get() == 0;
  }

  /** Starts the periodic sweep unless it runs already or the keeper is closed. */
  private void startSweeping() {
    sweepLock.lock();
    try {
      if (sweeping == null && !closed) {
        sweeping = threads.every(TICK_MILLIS, this::sweepLogged);
      }
    } finally {
      sweepLock.unlock();
    }
  }

  /**
   * Stops the periodic sweep when no lease is watched or being acquired, then starts it again if
   * one was meanwhile (its {@link #watch} may have seen the sweep still running).
   */
  private void stopSweepingIfIdle() {
    sweepLock.lock();
    try {
      ScheduledFuture<?> running = sweeping;
      if (running == null || !idle()) {
        return;
      }
      running.cancel(false);
      sweeping = null;
    } finally {
      sweepLock.unlock();
    }
    if (!idle()) {
      startSweeping();
    }
  }

  /**
   * The longest time between {@code since} and {@code now} in which the keeper did not sweep: about
   * a tick while this process runs, much longer across a stop (a long GC pause, {@code SIGSTOP}),
   * whether the stop is still showing (no sweep since) or one of the last few the sweep saw end.
   * Zero once the keeper is closed: it no longer sweeps, which says nothing of this process.
   *
   * @param since the earliest time that counts, such as when a lease was granted
   */
  long longestStopSince(long since, long now) {
    return closed ? 0 : gaps.longestSince(since, now);
  }

  /** When the sweep last ran, on the ticker (for tests). */
  long lastSweep() {
    return gaps.lastSweep();
  }

  /** Whether the periodic sweep is running (only while some lease is watched or being acquired). */
  boolean isSweeping() {
    return sweeping != null;
  }

  /**
   * Stops watching the lease's deadline. A locked call still counts as running while its holder has
   * not begun the release (its lease was lost, say): its release is still to reach the provider.
   */
  void unwatch(ActiveLease lease) {
    if (stopWatching(lease) && lease.releaseStarted()) {
      callEnded(lease);
    }
  }

  /**
   * Stops watching the lease's deadline; its releaser calls {@link #callEnded} once it is done with
   * the provider (a release still going out keeps {@link #awaitNoRunningCalls} waiting, so the
   * providers are not closed under it).
   *
   * @return whether the lease was watched
   */
  boolean stopWatching(ActiveLease lease) {
    return leases.remove(lease.ownerToken(), lease);
  }

  /** The lease's locked call is over, if it is one and was not over before. */
  void callEnded(ActiveLease lease) {
    if (calls.remove(lease)) {
      runningCalls.ended();
    }
  }

  /**
   * Waits until no locked call's lease is kept any more (each was released or lost), or the timeout
   * ran out.
   *
   * @return whether none is left
   */
  boolean awaitNoRunningCalls(Duration timeout) throws InterruptedException {
    return runningCalls.await(timeout);
  }

  /** How many locked calls' leases are kept now. */
  int runningCalls() {
    return runningCalls.count();
  }

  /** A provider reported a lease lost (its connection dropped, say). */
  void lost(LeaseGrant grant) {
    ActiveLease lease = leases.get(grant.ownerToken());
    if (lease == null) {
      rememberLost(grant.ownerToken());
      lease = leases.get(grant.ownerToken());
    }
    if (lease != null && lease.lockId().equals(grant.lockId())) {
      lostBeforeWatched.remove(grant.ownerToken());
      lease.reportedLost("the provider reported it lost (" + lease.providerDescription() + ")");
    }
  }

  private void rememberLost(String ownerToken) {
    lostBeforeWatched.put(ownerToken, ticker.read());
    if (lostBeforeWatched.size() > RECENTLY_LOST) {
      lostBeforeWatched.entrySet().stream()
          .min(java.util.Map.Entry.comparingByValue())
          .ifPresent(oldest -> lostBeforeWatched.remove(oldest.getKey(), oldest.getValue()));
    }
  }

  /** Keeps one lease again at {@code nanos} on the ticker, such as its deadline. */
  void checkAt(ActiveLease lease, long nanos) {
    threads.onSweeperAfter(
        nanos - ticker.read(),
        () -> {
          long now = ticker.read();
          if (leases.get(lease.ownerToken()) == lease && !lease.keep(now, this)) {
            unwatch(lease);
          }
          lanes.dispatch(now);
        });
  }

  /** The releases sent and not yet answered. */
  InFlight pendingReleases() {
    return pendingReleases;
  }

  /**
   * Handles a provider's late answer on the engine's completion thread; once the keeper is closed
   * the answer is dropped (its lease ends by its ttl).
   */
  void complete(Runnable handling) {
    threads.complete(handling);
  }

  /** A lease's renewal is due and started: it goes out with its provider's next batch. */
  void renewDue(ActiveLease lease) {
    lanes.due(lease);
  }

  /** A lease's renewal falls due soon: it joins a batch of its provider's sent in this sweep. */
  void mayRenewEarly(ActiveLease lease) {
    lanes.early(lease);
  }

  /**
   * Runs a task on the engine's background threads after a delay (in real time), such as a
   * provider's outage probe; does nothing once the keeper is closed.
   */
  void runAfter(Duration delay, Runnable task) {
    threads.runAfter(delay, task);
  }

  /**
   * A sweep whose failure is logged, not thrown: one that escaped would end the periodic task for
   * good, and no lease would be renewed or reported lost again.
   */
  private void sweepLogged() {
    try {
      sweep();
    } catch (Throwable e) {
      LOG.error("Lease sweep failed; it runs again at the next tick", e);
    }
  }

  private void sweep() {
    if (idle()) {
      stopSweepingIfIdle();
      return;
    }
    long now = ticker.read();
    for (ActiveLease lease : leases.values()) {
      try {
        if (!lease.keep(now, this)) {
          unwatch(lease);
        }
      } catch (RuntimeException | Error e) { // one lease's failure must not stop the others'
        LOG.warn(
            "Keeping lease on {} failed: {}", LockIdText.quoted(lease.lockId()), Causes.oneLine(e));
        LOG.debug("Keeping lease on {} failed", LockIdText.quoted(lease.lockId()), e);
      }
    }
    gaps.swept(now);
    lanes.dispatch(now);
  }

  @Override
  public void close() {
    close(Duration.ZERO);
  }

  /**
   * Stops every thread of the keeper (interrupting the tasks running on them), then waits up to
   * {@code wait} for the tasks still running to end, so that none of them calls a provider after
   * this returns. A close from a keeper's own thread (a listener's, say) does not wait.
   *
   * @return whether every task ended in time
   */
  boolean close(Duration wait) {
    sweepLock.lock();
    try {
      closed = true;
      lanes.stop();
      threads.stop();
      sweeping = null;
    } finally {
      sweepLock.unlock();
    }
    leases.clear();
    return threads.awaitStopped(wait);
  }
}
