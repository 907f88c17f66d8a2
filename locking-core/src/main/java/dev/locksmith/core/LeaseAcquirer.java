package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Takes leases under a busy policy (SKIP, FAIL, WAIT) through the provider's outage circuit, makes
 * late grants usable or refuses them ({@link LateGrants}), hands every lease it takes to the {@link
 * LeaseKeeper}, and tells listeners of each outcome; takes none once the engine closed ({@link
 * GrantGate}). Used by every kind of call: annotated, programmatic and prepared.
 */
final class LeaseAcquirer {
  private final ProviderCircuits circuits;
  private final Listeners listeners;
  private final Ticker ticker;
  private final LeaseKeeper keeper;
  private final GrantGate gate;
  private final SharedWaits waits = new SharedWaits();
  private final KeySetAcquirer keySets;

  LeaseAcquirer(
      ProviderCircuits circuits,
      Listeners listeners,
      Ticker ticker,
      LeaseKeeper keeper,
      GrantGate gate) {
    this.circuits = circuits;
    this.listeners = listeners;
    this.ticker = ticker;
    this.keeper = keeper;
    this.gate = gate;
    this.keySets = new KeySetAcquirer(this, gate, circuits, listeners, ticker);
  }

  /**
   * Takes the lock, or with several keys every key's lock ({@link KeySetAcquirer#obtainAll}), under
   * the options' busy policy; {@code null} means skipped.
   */
  @Nullable HeldLease obtainHeld(
      LockOptions options, String providerName, LockProvider provider, boolean call) {
    return obtainHeld(options, providerName, provider, call, null, ticker.read());
  }

  /**
   * As {@link #obtainHeld(LockOptions, String, LockProvider, boolean)}, for a call asked for on
   * another thread: with several keys, {@code reentered} (when given) are the leases to reenter,
   * found on the caller's thread; the wait counts from {@code start} (on the engine's ticker, see
   * {@link #now()}), when the call was asked for, so that time queued for a thread is part of it.
   */
  @Nullable HeldLease obtainHeld(
      LockOptions options,
      String providerName,
      LockProvider provider,
      boolean call,
      @Nullable ReenteredKeys reentered,
      long start) {
    try {
      // The keeper sweeps throughout, so that it sees this process stop inside a provider call
      // (on every provider: a pause limit such as a ZooKeeper session's may be known only once
      // the call has connected).
      keeper.acquisitionStarted();
      if (options.keys().isEmpty()) {
        return obtain(options, providerName, provider, call, start, false);
      }
      return keySets.obtainAll(
          options,
          providerName,
          provider,
          call,
          reentered != null ? reentered : ReenteredKeys.find(provider, options),
          start);
    } finally {
      keeper.acquisitionEnded();
    }
  }

  /** The engine's ticker now: when an acquisition asked for on another thread starts its wait. */
  long now() {
    return ticker.read();
  }

  /**
   * Takes the lock under the options' busy policy; {@code null} means skipped. A grant that arrives
   * with less than half its TTL left is renewed before it is used ({@link LateGrants}); when that
   * fails, WAIT goes on waiting within its timeout, and otherwise the call fails.
   *
   * @param call whether the lease belongs to a locked call that {@code close()} waits for
   */
  @Nullable ActiveLease obtain(
      LockOptions options, String providerName, LockProvider provider, boolean call) {
    return obtain(options, providerName, provider, call, ticker.read(), false);
  }

  /**
   * Takes the lock as {@link #obtain(LockOptions, String, LockProvider, boolean)} does, counting
   * the wait (its deadline, its figures and the timeout's) from {@code start}: a set of keys taken
   * one by one shares one wait. {@code askedBefore}: that wait already asked the provider, so a
   * WAIT past its deadline times out without asking again (one call in flight at the deadline is
   * all a wait may overrun by, however many keys are left).
   */
  @Nullable ActiveLease obtain(
      LockOptions options,
      String providerName,
      LockProvider provider,
      boolean call,
      long start,
      boolean askedBefore) {
    gate.checkOpen();
    ProviderCircuit circuit = circuits.of(provider);
    String lockId = options.lockId();
    boolean wait = options.onBusy() == OnBusy.WAIT;
    long waitNanos = options.waitTimeout().toNanos();
    // Every provider call on the caller's thread starts before a WAIT's deadline, one at a time,
    // so a WAIT ends no later than its timeout plus the one call in flight at the deadline.
    // A WAIT rides through an outage: a provider failure (or the open circuit's fast failure)
    // makes it pause (OutageBackoff, ended early when the circuit closes) and ask again, until its
    // timeout; the last failure is then the timeout's cause.
    OutageBackoff backoff = null; // made at the first outage: most calls never see one
    RuntimeException outage = null;
    for (int attempts = 0; ; attempts++) {
      gate.checkOpen();
      long remaining = waitNanos - (ticker.read() - start);
      if (wait && (attempts > 0 || askedBefore) && remaining <= 0) {
        LockEvent attempt = attempt(options, lockId, providerName);
        throw outage == null ? timedOut(attempt, start) : timedOut(attempt, start, circuit, outage);
      }
      LockRequest request =
          new LockRequest(
              lockId, OwnerTokens.newToken(), options.ttl(), OwnerTokens.describeCaller());
      Optional<LeaseGrant> grant;
      try {
        grant =
            wait
                ? waits.await(
                    provider,
                    lockId,
                    Math.max(0, remaining),
                    ticker,
                    left ->
                        circuit.call(
                            () -> provider.acquire(request, left),
                            lockId,
                            ProviderCircuit.ACQUIRED))
                : circuit.call(
                    () -> provider.tryAcquire(request), lockId, ProviderCircuit.ACQUIRED);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LockException(
            "Interrupted while waiting for lock " + LockIdText.quoted(lockId), e);
      } catch (RuntimeException e) {
        if (!wait || !ProviderCircuit.isProviderFailure(e)) {
          listeners.error(attempt(options, lockId, providerName), e);
          throw e;
        }
        outage = e;
        if (backoff == null) {
          backoff = new OutageBackoff();
        }
        backoff.pause(circuit, waitNanos - (ticker.read() - start), lockId);
        if (circuit.isStopped()) {
          gate.checkOpen();
        }
        continue;
      }
      outage = null;
      if (grant.isPresent()) {
        LeaseGrant granted = grant.get();
        gate.usingGrants(List.of(granted), circuit);
        try {
          boolean inTime = !wait || ticker.read() - start < waitNanos;
          LateGrants.Refused refusal;
          try {
            return use(options, lockId, providerName, circuit, granted, inTime, start, call);
          } catch (LateGrants.Refused e) {
            refusal = e;
          } catch (RuntimeException | Error e) {
            // Failed between the grant and the lease (a listener's Error, the provider's own
            // settings): the grant is given back, not left to block the lock for its ttl.
            releaseLater(List.of(granted), circuit);
            throw e;
          }
          if (wait && ticker.read() - start < waitNanos) {
            LateGrants.release(granted, circuit); // before asking again, within the wait
            continue;
          }
          releaseLater(List.of(granted), circuit);
          // A WAIT gets here only once its time ran out: that is its end, whatever came late.
          throw refused(attempt(options, lockId, providerName), start, inTime && !wait, refusal);
        } finally {
          gate.grantsUsed();
        }
      }
      LockEvent attempt = attempt(options, lockId, providerName);
      switch (options.onBusy()) {
        case SKIP -> {
          listeners.busy(attempt, Duration.ofNanos(ticker.read() - start));
          return null;
        }
        case FAIL -> {
          listeners.busy(attempt, Duration.ofNanos(ticker.read() - start));
          throw new LockBusyException(lockId);
        }
        default -> {
          throw timedOut(attempt, start);
        }
      }
    }
  }

  /** The event of an attempt that took no lease: fencing token 0. */
  private static LockEvent attempt(LockOptions options, String lockId, String providerName) {
    return new LockEvent(options.name(), lockId, providerName, 0);
  }

  /**
   * Releases grants that were not used, in reverse order, without the caller waiting for the
   * answers: sent through {@link dev.locksmith.core.spi.LockProvider#releaseAsync} where the
   * provider has its own, else run on the engine's background threads.
   */
  void releaseLater(List<LeaseGrant> grants, ProviderCircuit circuit) {
    if (!circuit.releasesAtOnce()) {
      // Sent now, in order, without waiting for the answers: no thread needed.
      for (int k = grants.size() - 1; k >= 0; k--) {
        LateGrants.releaseAsync(grants.get(k), circuit);
      }
      return;
    }
    List<LeaseGrant> unused = List.copyOf(grants);
    keeper.runAfter(
        Duration.ZERO,
        () -> {
          for (int k = unused.size() - 1; k >= 0; k--) {
            LateGrants.release(unused.get(k), circuit);
          }
        });
  }

  /**
   * Makes a grant usable ({@link LateGrants#usable}) and keeps it as an active lease: watched by
   * the keeper, and listeners told it was acquired.
   *
   * @param lockId the options' lock id, made once by the caller
   * @param mayRenew whether a late grant may be renewed now; {@code false} after a wait's timeout
   * @param start when the acquisition started on the ticker, for the time waited
   * @return the lease
   * @throws LateGrants.Refused when a late grant could not be made usable: the caller then releases
   *     the grant, and the exception says why
   */
  ActiveLease use(
      LockOptions options,
      String lockId,
      String providerName,
      ProviderCircuit circuit,
      LeaseGrant grant,
      boolean mayRenew,
      long start,
      boolean call)
      throws LateGrants.Refused {
    LeaseGrant usable = LateGrants.usable(grant, circuit, ticker, mayRenew);
    if (gate.isClosed()) {
      // Closed while a late grant was being renewed: close() may have given up waiting for it.
      LateGrants.release(usable, circuit);
      gate.checkOpen();
    }
    long acquiredAt = ticker.read();
    ActiveLease lease =
        new ActiveLease(
            options,
            lockId,
            providerName,
            circuit,
            listeners,
            ticker,
            usable,
            acquiredAt,
            grantedFrom(usable, start, acquiredAt),
            call);
    // Told before the keeper watches it: a loss found from then on is told after the acquisition.
    listeners.acquired(lease.event(), Duration.ofNanos(acquiredAt - start));
    lease.keepWith(keeper);
    return lease;
  }

  /**
   * From when a stop of this process counts against a lease: the send time of the request that
   * granted it (or renewed it last), which its conservative deadline less its ttl gives, as the
   * lease may have begun on the store from then on; not before the acquisition started. A stop
   * inside the provider call after the request went out (the ensemble's session expired while this
   * process stood still between the grant and its answer, say) ends the lease as one after the
   * grant does; a stop while still waiting before it does not. A renewal of a late grant proves the
   * lease was held when it went out, so the renewed grant counts from then. Never after {@code
   * acquiredAt}, whatever deadline a provider reports.
   */
  static long grantedFrom(LeaseGrant grant, long start, long acquiredAt) {
    long ttl = grant.ttl().toNanos();
    long from = grant.deadlineNanos() - start > ttl ? grant.deadlineNanos() - ttl : start;
    return from - acquiredAt > 0 ? acquiredAt : from;
  }

  /**
   * The error for a late grant that was not used and is being released: a timeout when the wait had
   * run out, otherwise the refusal, which listeners are told of.
   *
   * @param inTime whether a wait was still within its timeout (always, for SKIP and FAIL)
   */
  RuntimeException refused(
      LockEvent attempt, long start, boolean inTime, LateGrants.Refused refusal) {
    if (!inTime) {
      return timedOut(attempt, start);
    }
    LockProviderException error = LateGrants.refused(attempt.lockId(), refusal.getMessage());
    listeners.error(attempt, error);
    return error;
  }

  /**
   * Tells listeners that a WAIT ran out while its provider failed, and returns the exception to
   * throw: its message names the provider and the failure, its cause is the failure.
   */
  private LockTimeoutException timedOut(
      LockEvent attempt, long start, ProviderCircuit circuit, RuntimeException outage) {
    Duration waited = Duration.ofNanos(ticker.read() - start);
    listeners.timedOut(attempt, waited);
    String problem = outage instanceof ProviderDownException ? circuit.health().problem() : null;
    return new LockTimeoutException(
        attempt.lockId(),
        waited,
        "lock provider "
            + circuit.name()
            + " ("
            + circuit.description()
            + ") did not answer ("
            + (problem != null ? problem : Causes.oneLine(outage))
            + ")",
        outage);
  }

  /** Tells listeners that a WAIT ran out, and returns the exception to throw. */
  private LockTimeoutException timedOut(LockEvent attempt, long start) {
    Duration waited = Duration.ofNanos(ticker.read() - start);
    listeners.timedOut(attempt, waited);
    return new LockTimeoutException(attempt.lockId(), waited);
  }
}
