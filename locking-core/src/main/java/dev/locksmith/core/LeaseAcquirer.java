package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Takes leases under a busy policy (SKIP, FAIL, WAIT) through the provider's outage circuit, makes
 * late grants usable or refuses them ({@link LateGrants}), hands every lease it takes to the {@link
 * LeaseKeeper}, and tells listeners of each outcome. Used by every kind of call: annotated,
 * programmatic and prepared.
 */
final class LeaseAcquirer {
  private final ProviderCircuits circuits;
  private final Listeners listeners;
  private final Ticker ticker;
  private final LeaseKeeper keeper;
  private final AtomicBoolean closed = new AtomicBoolean();

  LeaseAcquirer(ProviderCircuits circuits, Listeners listeners, Ticker ticker, LeaseKeeper keeper) {
    this.circuits = circuits;
    this.listeners = listeners;
    this.ticker = ticker;
    this.keeper = keeper;
  }

  /**
   * Takes no more leases from now on.
   *
   * @return whether this call closed it (false when it was closed already)
   */
  boolean close() {
    return closed.compareAndSet(false, true);
  }

  /**
   * Takes the lock, or with several keys every key's lock ({@link #obtainAll}), under the options'
   * busy policy; {@code null} means skipped.
   */
  @Nullable HeldLease obtainHeld(
      LockOptions options, String providerName, LockProvider provider, boolean call) {
    return options.keys().isEmpty()
        ? obtain(options, providerName, provider, call)
        : obtainAll(options, providerName, provider, call);
  }

  /**
   * Takes the lock of every key, in lock order (the keys sorted, so that two calls over the same
   * keys cannot deadlock), all or nothing: when one key is busy under SKIP or FAIL, or a WAIT runs
   * out, or anything fails, the leases taken so far are released in reverse order. A WAIT waits for
   * the whole set within one {@code waitTimeout}: each next key gets the time left. A key whose
   * lease this thread already holds (through the same provider) is reentered, not taken again.
   *
   * @return {@code null} when skipped
   */
  @Nullable CompositeLease obtainAll(
      LockOptions options, String providerName, LockProvider provider, boolean call) {
    boolean wait = options.onBusy() == OnBusy.WAIT;
    long start = ticker.read();
    long waitNanos = options.waitTimeout().toNanos();
    List<ActiveLease> parts = new ArrayList<>(options.keys().size());
    List<ActiveLease> owned = new ArrayList<>(options.keys().size());
    List<Runnable> borrowed = new ArrayList<>();
    boolean complete = false;
    try {
      for (String key : options.keys()) {
        LockOptions one = options.withKey(key);
        ActiveLease held = HeldLeases.find(provider, one.lockId());
        if (held != null) {
          parts.add(held);
          borrowed.add(held.retain());
          continue;
        }
        if (wait) {
          long left = Math.max(0, waitNanos - (ticker.read() - start));
          one = one.withWaitTimeout(Duration.ofNanos(left));
        }
        ActiveLease lease = obtain(one, providerName, provider, call);
        if (lease == null) {
          return null;
        }
        parts.add(lease);
        owned.add(lease);
      }
      complete = true;
      return new CompositeLease(options, parts, owned, borrowed);
    } finally {
      if (!complete) {
        CompositeLease.abandon(owned, borrowed);
      }
    }
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
    if (closed.get()) {
      throw new IllegalStateException("This Locksmith is closed; it takes no more locks");
    }
    ProviderCircuit circuit = circuits.of(provider);
    String lockId = options.lockId();
    LockEvent attempt = new LockEvent(options.name(), lockId, providerName, 0);
    boolean wait = options.onBusy() == OnBusy.WAIT;
    long start = ticker.read();
    long waitNanos = options.waitTimeout().toNanos();
    // Every provider call on the caller's thread starts before a WAIT's deadline, one at a time,
    // so a WAIT ends no later than its timeout plus the one call in flight at the deadline.
    for (int attempts = 0; ; attempts++) {
      long remaining = waitNanos - (ticker.read() - start);
      if (wait && attempts > 0 && remaining <= 0) {
        throw timedOut(attempt, start);
      }
      LockRequest request =
          new LockRequest(
              lockId, OwnerTokens.newToken(), options.ttl(), OwnerTokens.describeCaller());
      Optional<LeaseGrant> grant;
      try {
        grant =
            wait
                ? circuit.call(
                    () -> provider.acquire(request, Duration.ofNanos(Math.max(0, remaining))),
                    lockId,
                    ProviderCircuit.ACQUIRED)
                : circuit.call(
                    () -> provider.tryAcquire(request), lockId, ProviderCircuit.ACQUIRED);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LockException("Interrupted while waiting for lock '" + lockId + "'", e);
      } catch (RuntimeException e) {
        listeners.error(attempt, e);
        throw e;
      }
      if (grant.isPresent()) {
        boolean inTime = !wait || ticker.read() - start < waitNanos;
        StringBuilder refusal = new StringBuilder();
        Optional<LeaseGrant> usable =
            LateGrants.usable(grant.get(), circuit, ticker, inTime, refusal);
        long acquiredAt = ticker.read();
        if (usable.isPresent()) {
          ActiveLease lease =
              new ActiveLease(
                  options,
                  providerName,
                  circuit,
                  listeners,
                  ticker,
                  usable.get(),
                  acquiredAt,
                  call);
          lease.keepWith(keeper);
          listeners.acquired(lease.event(), Duration.ofNanos(acquiredAt - start));
          return lease;
        }
        LeaseGrant unused = grant.get();
        if (wait && acquiredAt - start < waitNanos) {
          LateGrants.release(unused, circuit); // before asking again, within the wait
          continue;
        }
        // The caller gets its answer without waiting for one more provider call.
        keeper.runAfter(Duration.ZERO, () -> LateGrants.release(unused, circuit));
        if (!inTime) {
          throw timedOut(attempt, start);
        }
        LockProviderException error = LateGrants.refused(lockId, refusal);
        listeners.error(attempt, error);
        throw error;
      }
      switch (options.onBusy()) {
        case SKIP -> {
          listeners.busy(attempt);
          return null;
        }
        case FAIL -> {
          listeners.busy(attempt);
          throw new LockBusyException(lockId);
        }
        default -> {
          throw timedOut(attempt, start);
        }
      }
    }
  }

  /** Tells listeners that a WAIT ran out, and returns the exception to throw. */
  private LockTimeoutException timedOut(LockEvent attempt, long start) {
    Duration waited = Duration.ofNanos(ticker.read() - start);
    listeners.timedOut(attempt, waited);
    return new LockTimeoutException(attempt.lockId(), waited);
  }
}
