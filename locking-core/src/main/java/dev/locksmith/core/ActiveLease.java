package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.RenewalRequest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A lease the engine holds: watched and renewed by the {@link LeaseKeeper}, released once its
 * holder and every result that retained it are done.
 *
 * <p>Every timing rule of a held lease lives here, on the engine's {@link Ticker}: it was acquired
 * when the provider's grant returned; it is renewed when two thirds of its TTL are left; it is lost
 * the moment its local deadline passes without a confirmed renewal, whatever provider call is still
 * in flight; and a renewal confirmed after that does not revive it. Its {@link LeaseRelease} ends
 * it once its holder and every retained result are done.
 */
final class ActiveLease implements HeldLease {
  private final LockOptions options;
  // The lock id and the event, made once: both are asked for several times per call.
  private final String lockId;
  private volatile LockEvent event;
  private final String providerName;
  private final LockProvider provider;
  private final ProviderCircuit circuit;
  private final Listeners listeners;
  private final Ticker ticker;
  private final LeaseCalls calls;
  private final long acquiredAt;
  // Stops of this process from this time on count against the lease (see stoppedReason).
  private final long stopsCountFrom;
  private final boolean call;
  private final LeaseHolds holds = new LeaseHolds();
  private final ClosingOnce closing = new ClosingOnce();
  private final LeaseRelease release;
  private static final VarHandle LOST_REASON =
      FieldHandles.of(MethodHandles.lookup(), "lostReason", String.class);

  // Why the lease was lost, once it was; set once (through LOST_REASON).
  private volatile @Nullable String lostReason;

  // Given up before its work ran (abandon): released with no minimum hold.
  private volatile boolean abandoned;
  // Serialises the provider calls of renewal and release, so a late renewal cannot undo a release
  // or a minimum-hold shortening.
  private final ReentrantLock providerCalls = new ReentrantLock();
  private volatile LeaseGrant grant;
  private volatile @Nullable LeaseKeeper keeper;
  private final RenewalSchedule renewal;
  // How early a lease may join a batch of renewals going out: a twelfth of its ttl, at most 250 ms.
  private final long earlyWindow;
  // The longest the keeper may stand still before the provider's store may have ended the lease
  // (LockProvider.pauseLimit), in nanoseconds; Long.MAX_VALUE when only the ttl ends it.
  private final long pauseLimit;

  ActiveLease(
      LockOptions options,
      String lockId,
      String providerName,
      ProviderCircuit circuit,
      Listeners listeners,
      Ticker ticker,
      LeaseGrant grant,
      long acquiredAt,
      long stopsCountFrom,
      boolean call) {
    this.options = options;
    this.lockId = lockId;
    this.event = new LockEvent(options.name(), lockId, providerName, grant.fencingToken());
    this.providerName = providerName;
    this.provider = circuit.provider();
    this.circuit = circuit;
    this.listeners = listeners;
    this.ticker = ticker;
    this.calls = new LeaseCalls(options, lockId, circuit, listeners, ticker);
    this.grant = grant;
    this.acquiredAt = acquiredAt;
    this.stopsCountFrom = stopsCountFrom;
    this.call = call;
    this.renewal = new RenewalSchedule(grant);
    this.earlyWindow = Math.min(options.ttl().toNanos() / 12, 250_000_000L);
    this.pauseLimit = LossReasons.pauseLimitNanos(provider);
    this.release = new LeaseRelease(this, calls, listeners, providerCalls);
  }

  void keepWith(LeaseKeeper leaseKeeper) {
    keeper = leaseKeeper;
    leaseKeeper.watch(this);
  }

  /**
   * Called by the keeper on every tick: reports the lease lost once its deadline passed without a
   * confirmed renewal (even while a renewal call hangs), and starts a renewal when one is due.
   *
   * @return whether the keeper should go on keeping this lease
   */
  boolean keep(long now, LeaseKeeper leaseKeeper) {
    LeaseRelease.Phase phase = release.phase();
    if (phase == LeaseRelease.Phase.DONE || lostReason != null) {
      return false;
    }
    boolean releasing = phase == LeaseRelease.Phase.AWAITED;
    String stopped = stoppedReason(now);
    if (stopped != null && !releasing) {
      // Kept when its release began meanwhile: the next tick sees how that release stands.
      return !release.unlessStarted(() -> markLost(stopped));
    }
    LeaseGrant current = grant;
    if (current.expiredAt(now)) {
      if (releasing) {
        release.endByTtl();
        return false;
      }
      String reason = deadlineReason(now);
      return !release.unlessStarted(() -> markLost(reason));
    }
    if (renewal.checkAtDeadline(current.deadlineNanos(), now)) {
      leaseKeeper.checkAt(this, current.deadlineNanos());
    }
    if (!releasing && options.renew()) {
      if (renewal.start(now)) {
        leaseKeeper.renewDue(this);
      } else if (renewal.dueWithin(now, earlyWindow)) {
        leaseKeeper.mayRenewEarly(this);
      }
    }
    return true;
  }

  /**
   * Starts a renewal before it is due, to join a batch going out now: only while the lease is held
   * and no renewal is in flight.
   */
  boolean startRenewalEarly(long now) {
    return !release.started() && lostReason == null && renewal.startWithin(now, earlyWindow);
  }

  /**
   * Why the lease may have ended on the store though its deadline has not passed: the keeper stood
   * still (this process was paused) for longer than the provider's pause limit; else {@code null}.
   * Read before the lost reason: the keeper marks such leases lost before it counts itself as
   * running again.
   */
  private @Nullable String stoppedReason(long now) {
    LeaseKeeper k = keeper;
    if (k == null || pauseLimit == Long.MAX_VALUE) {
      return null;
    }
    long stopped = k.longestStopSince(stopsCountFrom, now);
    return stopped <= pauseLimit
        ? null
        : LossReasons.stopped(stopped, pauseLimit, circuit.description());
  }

  private String deadlineReason(long now) {
    return LossReasons.deadline(options, renewal.inFlightMillis(now), circuit.description());
  }

  /**
   * Takes the lease for a renewal in a batch: holds its provider calls until {@link #endRenewal} or
   * {@link #renewAlone}, so that its release waits for the batch as it waits for a single renewal.
   *
   * @return what to renew, or {@code null} when the lease needs no renewal any more (released,
   *     lost, or its deadline passed, which is reported here); its renewal is then over
   */
  @Nullable RenewalRequest beginRenewal() {
    if (!providerCalls.tryLock()) {
      // Its release (or minimum-hold shortening) is under way: no renewal is wanted.
      renewal.finished();
      return null;
    }
    boolean taken = false;
    try {
      if (release.started() || lostReason != null) {
        return null;
      }
      long now = ticker.read();
      if (grant.expiredAt(now)) {
        String reason = deadlineReason(now);
        release.unlessStarted(() -> markLost(reason));
        return null;
      }
      taken = true;
      return new RenewalRequest(grant, options.ttl());
    } finally {
      if (!taken) {
        providerCalls.unlock();
        renewal.finished();
      }
    }
  }

  /**
   * Applies the answer of a batch to a lease taken by {@link #beginRenewal}, as a single renewal's
   * answer is applied, and ends its renewal.
   *
   * @param answer the provider's answer for this lease, when the batch was answered
   * @param failure what the batch failed with, else {@code null}
   */
  void endRenewal(
      RenewalRequest request,
      @Nullable Optional<LeaseGrant> answer,
      @Nullable RuntimeException failure) {
    try {
      applyRenewal(failure == null ? answer : calls.renewFailed(request.lease(), event(), failure));
    } finally {
      providerCalls.unlock();
      renewal.finished();
    }
  }

  /** Renews a lease taken by {@link #beginRenewal} on its own, and ends its renewal. */
  void renewAlone(RenewalRequest request) {
    try {
      applyRenewal(calls.renew(request.lease(), event()));
    } finally {
      providerCalls.unlock();
      renewal.finished();
    }
  }

  ProviderCircuit circuit() {
    return circuit;
  }

  /**
   * Whether the lease belongs to a locked call (annotated, {@code run}, {@code call}) that the
   * engine runs, rather than to a lease handed to the application to close.
   */
  boolean isCall() {
    return call;
  }

  String providerDescription() {
    return circuit.description();
  }

  LockOptions options() {
    return options;
  }

  LockProvider provider() {
    return provider;
  }

  /** The provider's latest grant: the first, or the last renewal confirmed in time. */
  LeaseGrant grant() {
    return grant;
  }

  /** The keeper watching the lease; {@code null} before {@link #keepWith}. */
  @Nullable LeaseKeeper keeper() {
    return keeper;
  }

  /** Whether its holder closed it (the provider's release may still wait for retained results). */
  @Override
  public boolean isClosed() {
    return holds.isHolderClosed();
  }

  @Override
  public @Nullable ActiveLease part(Object lockProvider, String id) {
    return provider == lockProvider && lockId().equals(id) && isValid() ? this : null;
  }

  @Override
  public LockEvent event() {
    LockEvent made = event;
    long token = grant.fencingToken();
    if (made.fencingToken() != token) {
      made = new LockEvent(options.name(), lockId, providerName, token);
      event = made;
    }
    return made;
  }

  @Override
  public String name() {
    return options.name();
  }

  @Override
  public @Nullable String key() {
    return options.key();
  }

  @Override
  public String lockId() {
    return lockId;
  }

  @Override
  public long fencingToken() {
    return grant.fencingToken();
  }

  @Override
  public String ownerToken() {
    return grant.ownerToken();
  }

  @Override
  public Duration timeLeft() {
    return isValid() ? grant.timeLeftAt(ticker.read()) : Duration.ZERO;
  }

  @Override
  public boolean isValid() {
    long now = ticker.read();
    return stoppedReason(now) == null
        && lostReason == null
        && !release.started()
        && !deadlinePassed(now);
  }

  @Override
  public void checkValid() {
    long now = ticker.read();
    String stopped = stoppedReason(now);
    String reason = lostReason;
    if (reason != null) {
      throw new LockLostException(lockId(), reason);
    }
    if (release.started()) {
      throw new LockLostException(lockId(), LossReasons.RELEASED);
    }
    if (stopped != null) {
      throw new LockLostException(lockId(), stopped);
    }
    if (deadlinePassed(now)) {
      String marked = lostReason;
      throw new LockLostException(lockId(), marked != null ? marked : deadlineReason(now));
    }
  }

  /**
   * Whether the deadline has passed; if so the lease is marked lost (unless its release began) as
   * the holder is told, so that a renewal confirmed afterwards cannot make it valid again.
   */
  private boolean deadlinePassed(long now) {
    if (!grant.expiredAt(now)) {
      return false;
    }
    String reason = deadlineReason(now);
    release.unlessStarted(() -> markLost(reason));
    return true;
  }

  // Three outcomes: renewed, no longer held (empty), failed (null) and retried soon.
  @SuppressWarnings("OptionalAssignedToNull")
  private void applyRenewal(@Nullable Optional<LeaseGrant> renewed) {
    if (renewed == null) {
      renewal.retrySoon(ticker.read(), options.ttl());
      return;
    }
    if (renewed.isEmpty()) {
      // Once released, the release's own answer (or its end by the deadline) tells what happened.
      release.unlessStarted(() -> markLost(LossReasons.GONE_AT_RENEWAL));
      return;
    }
    long now = ticker.read();
    if (lostReason == null && grant.expiredAt(now)) {
      // Confirmed after the deadline, which the holder may already have been told of
      // (checkValid): a renewal confirmed later does not revive the lease.
      String reason = deadlineReason(now);
      release.unlessStarted(() -> markLost(reason));
      if (!release.started()) {
        // Lost, told by this thread or by another one telling it right now.
        calls.releaseUnused(renewed.get());
        return;
      }
    }
    if (lostReason != null) {
      // Confirmed after the deadline was declared passed: the loss stands, and the store's
      // renewed lease is of no use to anyone, so free it for the next owner.
      calls.releaseUnused(renewed.get());
      return;
    }
    grant = renewed.get();
    renewal.renewed(renewed.get());
  }

  /**
   * The provider reported the lease lost; ignored once its release was sent, since the release's
   * own answer tells whether it was still held.
   */
  void reportedLost(String reason) {
    release.unlessStarted(() -> markLost(reason));
  }

  /** Whether its release has begun: the holder is done with it. */
  boolean releaseStarted() {
    return release.started();
  }

  /** Whether the lease was found lost. */
  boolean isLost() {
    return lostReason != null;
  }

  void markLost(String reason) {
    if (LOST_REASON.compareAndSet(this, null, reason)) {
      cancelWatch();
      listeners.lost(event(), reason);
    }
  }

  private void cancelWatch() {
    LeaseKeeper k = keeper;
    if (k != null) {
      k.unwatch(this);
    }
  }

  /**
   * Holds the lease for a result that completes later (a {@code CompletionStage} returned by a
   * reentered call): the provider's release waits until the returned action has run, as well as for
   * the holder's own close.
   *
   * @return the action that drops this hold; running it more than once does nothing
   */
  @Override
  public Runnable retain() {
    return holds.retain(this::dropHold);
  }

  /**
   * The holder is done with the lease: releases it, or with a minimum hold time left shortens it to
   * end then, once no retained result still needs it. Never throws: a failing release is told to
   * listeners and logged.
   */
  @Override
  public void close() {
    // Two threads closing at once both return once the release has started (ClosingOnce).
    closing.run(
        () -> {
          if (holds.closeHolder()) {
            HeldLeases.remove(this);
            dropHold();
          }
        });
  }

  @Override
  public void abandon() {
    abandoned = true;
    close();
  }

  private void dropHold() {
    if (holds.drop()) {
      releaseNow();
    }
  }

  /**
   * Releases the lease through its {@link LeaseRelease}, once it was found lost if it ended before
   * (a release sent then could report it released, or hold it on for its minimum hold, though
   * another owner may have held the lock meanwhile).
   */
  private void releaseNow() {
    long now = ticker.read();
    if (!release.started()) {
      // Whether or not the keeper's tick has said so yet.
      String stopped = stoppedReason(now);
      if (stopped != null) {
        markLost(stopped);
      } else if (grant.expiredAt(now)) {
        markLost(deadlineReason(now));
      }
    }
    long held = now - acquiredAt;
    long holdLeft = lostReason == null && !abandoned ? options.minHold().toNanos() - held : 0;
    release.start(Math.max(0, held), holdLeft);
  }

  @Override
  public String toString() {
    return "Lease[" + lockId() + ", fencing token " + fencingToken() + "]";
  }
}
