package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease the engine holds: watched and renewed by the {@link LeaseKeeper}, released once its
 * holder and every result that retained it are done.
 *
 * <p>Every timing rule of a held lease lives here, on the engine's {@link Ticker}: it was acquired
 * when the provider's grant returned; it is renewed when two thirds of its TTL are left; it is lost
 * the moment its local deadline passes without a confirmed renewal, whatever provider call is still
 * in flight; and a renewal confirmed after that does not revive it.
 */
final class ActiveLease implements Lease {
  private static final Logger LOG = LoggerFactory.getLogger(ActiveLease.class);

  private final LockOptions options;
  private final String providerName;
  private final LockProvider provider;
  private final ProviderCircuit circuit;
  private final Listeners listeners;
  private final Ticker ticker;
  private final long acquiredAt;
  private final boolean call;
  private final AtomicReference<@Nullable String> lostReason = new AtomicReference<>();
  // The holder's own close (once) and every CompletionStage returned by a reentered call each hold
  // the lease; the provider's release happens when the last hold is dropped.
  private final AtomicInteger holds = new AtomicInteger(1);
  private final AtomicBoolean holderClosed = new AtomicBoolean();
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean renewing = new AtomicBoolean();
  private volatile long renewalStartedAt;
  // Serialises the provider calls of renewal and release, so a late renewal cannot undo a release
  // or a minimum-hold shortening.
  private final ReentrantLock providerCalls = new ReentrantLock();
  private volatile LeaseGrant grant;
  private volatile @Nullable LeaseKeeper keeper;
  private volatile long nextRenewal;
  private volatile long deadlineCheck;

  ActiveLease(
      LockOptions options,
      String providerName,
      ProviderCircuit circuit,
      Listeners listeners,
      Ticker ticker,
      LeaseGrant grant,
      long acquiredAt,
      boolean call) {
    this.options = options;
    this.providerName = providerName;
    this.provider = circuit.provider();
    this.circuit = circuit;
    this.listeners = listeners;
    this.ticker = ticker;
    this.grant = grant;
    this.acquiredAt = acquiredAt;
    this.call = call;
    this.nextRenewal = renewalDue(grant);
  }

  /** Renewal is due when two thirds of the TTL are left: a third of the TTL after a fresh grant. */
  private static long renewalDue(LeaseGrant grant) {
    return grant.deadlineNanos() - grant.ttl().toNanos() / 3 * 2;
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
    if (released.get() || lostReason.get() != null) {
      return false;
    }
    LeaseGrant current = grant;
    if (current.expiredAt(now)) {
      markLost(deadlineReason(now));
      return false;
    }
    if (current.deadlineNanos() - now < LeaseKeeper.TICK_NANOS
        && deadlineCheck != current.deadlineNanos()) {
      // The deadline falls before the next sweep: check at the deadline itself, not up to a tick
      // after it.
      deadlineCheck = current.deadlineNanos();
      leaseKeeper.checkAt(this, current.deadlineNanos());
    }
    if (options.renew() && now - nextRenewal >= 0 && renewing.compareAndSet(false, true)) {
      renewalStartedAt = now;
      leaseKeeper.renewLater(this::renewOnce);
    }
    return true;
  }

  private String deadlineReason(long now) {
    if (!options.renew()) {
      return "its ttl of " + Durations.format(options.ttl()) + " ran out while still held";
    }
    if (renewing.get()) {
      long inFlight = TimeUnit.NANOSECONDS.toMillis(now - renewalStartedAt);
      return "its deadline passed while a renewal had been waiting "
          + inFlight
          + " ms for "
          + circuit.description();
    }
    return "its deadline passed without a confirmed renewal";
  }

  private void renewOnce() {
    try {
      renewNow();
    } finally {
      renewing.set(false);
    }
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

  /** Whether its holder closed it (the provider's release may still wait for retained results). */
  boolean isClosed() {
    return holderClosed.get();
  }

  LockEvent event() {
    return new LockEvent(options.name(), options.lockId(), providerName, grant.fencingToken());
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
    return options.lockId();
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
    return lostReason.get() == null && !released.get() && !grant.expiredAt(ticker.read());
  }

  @Override
  public void checkValid() {
    String reason = lostReason.get();
    if (reason != null) {
      throw new LockLostException(lockId(), reason);
    }
    if (released.get()) {
      throw new LockLostException(lockId(), "it was released");
    }
    long now = ticker.read();
    if (grant.expiredAt(now)) {
      throw new LockLostException(lockId(), deadlineReason(now));
    }
  }

  /** Renews once, unless the lease was released or lost meanwhile. */
  void renewNow() {
    providerCalls.lock();
    try {
      if (!released.get() && lostReason.get() == null) {
        renewHeld();
      }
    } finally {
      providerCalls.unlock();
    }
  }

  private void renewHeld() {
    LeaseGrant current = grant;
    if (current.expiredAt(ticker.read())) {
      markLost(deadlineReason(ticker.read()));
      return;
    }
    Optional<LeaseGrant> renewed;
    try {
      // While the provider is down this fails fast, and the deadline rule reports the loss.
      renewed =
          circuit.callNow(
              () -> provider.renew(current, options.ttl()), lockId(), ProviderCircuit.RENEWED);
    } catch (RuntimeException e) {
      long now = ticker.read();
      // Try again soon rather than a third of the TTL later; the deadline is watched meanwhile.
      nextRenewal = now + Math.max(LeaseKeeper.TICK_NANOS, options.ttl().toNanos() / 10);
      long left = current.timeLeftAt(now).toMillis();
      if (e instanceof ProviderDownException) {
        LOG.debug("{}; retrying while {} ms remain", e.getMessage(), left);
        return;
      }
      listeners.error(event(), e);
      if (ProviderCircuit.isProviderFailure(e)) {
        // The provider's circuit logs the outage once; each failed call goes to DEBUG.
        LOG.debug("Renewing lock '{}' failed, retrying while {} ms remain", lockId(), left, e);
      } else {
        LOG.warn(
            "Renewing lock '{}' failed, retrying while {} ms remain: {}",
            lockId(),
            left,
            Causes.oneLine(e));
        LOG.debug("Renewing lock '{}' failed", lockId(), e);
      }
      return;
    }
    if (renewed.isEmpty()) {
      markLost("the provider no longer holds it for this owner (expired or taken over)");
      return;
    }
    if (lostReason.get() != null) {
      // Confirmed after the deadline was declared passed: the loss stands, and the store's
      // renewed lease is of no use to anyone, so free it for the next owner.
      releaseQuietly(renewed.get());
      return;
    }
    grant = renewed.get();
    nextRenewal = renewalDue(renewed.get());
  }

  private void releaseQuietly(LeaseGrant unused) {
    if (!circuit.isUp()) {
      return; // it ends by its ttl
    }
    try {
      circuit.callNow(() -> provider.release(unused), lockId(), ProviderCircuit.RELEASED);
    } catch (RuntimeException e) {
      LOG.debug("Releasing lock '{}' after its loss failed: {}", lockId(), e.toString());
    }
  }

  void markLost(String reason) {
    if (lostReason.compareAndSet(null, reason)) {
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
  Runnable retain() {
    holds.incrementAndGet();
    AtomicBoolean dropped = new AtomicBoolean();
    return () -> {
      if (dropped.compareAndSet(false, true)) {
        dropHold();
      }
    };
  }

  /**
   * The holder is done with the lease: releases it, or with a minimum hold time left shortens it to
   * end then, once no retained result still needs it. Never throws: a failing release is told to
   * listeners and logged.
   */
  @Override
  public void close() {
    if (holderClosed.compareAndSet(false, true)) {
      HeldLeases.remove(this);
      dropHold();
    }
  }

  private void dropHold() {
    if (holds.decrementAndGet() == 0 && released.compareAndSet(false, true)) {
      releaseNow();
    }
  }

  private void releaseNow() {
    LeaseKeeper k = keeper;
    boolean runningCall = k != null && k.stopWatching(this);
    try {
      release();
    } finally {
      if (runningCall) {
        k.callEnded();
      }
    }
  }

  private void release() {
    long heldNanos = ticker.read() - acquiredAt;
    Duration held = Duration.ofNanos(Math.max(0, heldNanos));
    if (!circuit.isUp()) {
      // Not run on the holder's thread against a provider known to be down, where it would wait
      // for the client's timeout to fail: the lease ends by its ttl on the store, a minimum hold
      // still owed included (the store cannot be told to shorten or extend it now).
      LOG.debug(
          "Lock '{}' not released: provider {} is down; the lease ends by its ttl",
          lockId(),
          circuit.name());
      listeners.released(event(), held);
      return;
    }
    providerCalls.lock();
    try {
      long holdLeft = options.minHold().toNanos() - heldNanos;
      boolean stillHeld;
      if (holdLeft >= 1_000_000 && lostReason.get() == null) {
        stillHeld =
            circuit
                .callNow(
                    () -> provider.renew(grant, Duration.ofNanos(holdLeft)),
                    lockId(),
                    ProviderCircuit.RELEASED)
                .isPresent();
      } else {
        stillHeld =
            circuit.callNow(() -> provider.release(grant), lockId(), ProviderCircuit.RELEASED);
      }
      if (!stillHeld) {
        markLost("it had already expired or been taken over when it was released");
      }
    } catch (ProviderDownException e) {
      LOG.debug("{}; the lease ends by its ttl", e.getMessage());
    } catch (RuntimeException e) {
      listeners.error(event(), e);
      if (ProviderCircuit.isProviderFailure(e)) {
        LOG.debug("Releasing lock '{}' failed; it will expire by its ttl", lockId(), e);
      } else {
        LOG.warn(
            "Releasing lock '{}' failed; it will expire by its ttl: {}",
            lockId(),
            Causes.oneLine(e));
        LOG.debug("Releasing lock '{}' failed", lockId(), e);
      }
    } finally {
      providerCalls.unlock();
    }
    listeners.released(event(), held);
  }

  @Override
  public String toString() {
    return "Lease[" + lockId() + ", fencing token " + fencingToken() + "]";
  }
}
