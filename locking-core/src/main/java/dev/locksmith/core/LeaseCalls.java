package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider calls of one held lease, renewal and release, each through the provider's circuit,
 * with what a failure tells the listeners and the log. The {@link ActiveLease} decides when they
 * run and what their outcome means for the lease.
 */
final class LeaseCalls {
  // The lease's own logger: its renewal and release lines have always been logged under it.
  private static final Logger LOG = LoggerFactory.getLogger(ActiveLease.class);

  private final LockOptions options;
  private final String lockId;
  private final ProviderCircuit circuit;
  private final LockProvider provider;
  private final Listeners listeners;
  private final Ticker ticker;

  LeaseCalls(
      LockOptions options,
      String lockId,
      ProviderCircuit circuit,
      Listeners listeners,
      Ticker ticker) {
    this.options = options;
    this.lockId = lockId;
    this.circuit = circuit;
    this.provider = circuit.provider();
    this.listeners = listeners;
    this.ticker = ticker;
  }

  /**
   * Renews a grant for the lease's TTL.
   *
   * @return the renewed grant, empty when the provider no longer holds the lease, {@code null} when
   *     the call failed (listeners told and logged, or the provider is down) and should be retried
   */
  // Three outcomes, told apart by the caller: renewed, no longer held, failed.
  @Nullable Optional<LeaseGrant> renew(LeaseGrant current, LockEvent event) {
    try {
      // While the provider is down this fails fast, and the deadline rule reports the loss.
      return circuit.call(
          () -> provider.renew(current, options.ttl()), lockId, ProviderCircuit.RENEWED);
    } catch (RuntimeException e) {
      return renewFailed(current, event, e);
    }
  }

  /**
   * Tells listeners and the log that renewing a grant failed, as a single renewal's failure always
   * was.
   *
   * @return {@code null}: the renewal is retried soon
   */
  @SuppressWarnings("OptionalAssignedToNull")
  @Nullable Optional<LeaseGrant> renewFailed(
      LeaseGrant current, LockEvent event, RuntimeException e) {
    long leftMillis = current.timeLeftAt(ticker.read()).toMillis();
    if (e instanceof ProviderDownException) {
      LOG.debug("{}; retrying while {} ms remain", e.getMessage(), leftMillis);
      return null;
    }
    listeners.error(event, e);
    if (ProviderCircuit.opensCircuit(e)) {
      // The provider's circuit logs the outage once; each failed call goes to DEBUG.
      LOG.debug(
          "Renewing lock {} failed, retrying while {} ms remain",
          LockIdText.quoted(lockId),
          leftMillis,
          e);
    } else {
      LOG.warn(
          "Renewing lock {} failed, retrying while {} ms remain: {}",
          LockIdText.quoted(lockId),
          leftMillis,
          Causes.oneLine(e));
      LOG.debug("Renewing lock {} failed", LockIdText.quoted(lockId), e);
    }
    return null;
  }

  /** Logs that a lost lease is not released while its renewal is in flight. */
  void skippedAfterLoss() {
    LOG.debug(
        "Lock {} not released: it was lost while a renewal was in flight, whose answer frees it"
            + " if it renewed it; else it ends by its ttl",
        LockIdText.quoted(lockId));
  }

  /** Frees a grant renewed after the lease was declared lost, so the next owner need not wait. */
  void releaseUnused(LeaseGrant unused) {
    if (!circuit.isUp()) {
      return; // it ends by its ttl
    }
    try {
      circuit.call(() -> provider.release(unused), lockId, ProviderCircuit.RELEASED);
    } catch (RuntimeException e) {
      LOG.debug(
          "Releasing lock {} after its loss failed: {}", LockIdText.quoted(lockId), e.toString());
    }
  }

  /**
   * Whether an end of the lease is answered on the calling thread: a minimum hold still owed (at
   * least a millisecond) is shortened there, so that no later renewal can undo it, and a provider
   * that keeps the SPI's default {@link LockProvider#releaseAsync} releases there anyway.
   */
  boolean endsAtOnce(long holdLeftNanos) {
    return holdLeftNanos >= 1_000_000 || circuit.releasesAtOnce();
  }

  /**
   * Ends a held lease on the provider on this thread: releases it, or with {@code holdLeftNanos} of
   * a minimum hold still owed (at least a millisecond) shortens it to end then.
   *
   * @return {@code false} when the provider no longer held the lease
   * @throws RuntimeException what the call failed with, for {@link #ended}
   */
  boolean endNow(LeaseGrant grant, long holdLeftNanos) {
    if (holdLeftNanos >= 1_000_000) {
      return circuit
          .call(
              () -> provider.renew(grant, Duration.ofNanos(holdLeftNanos)),
              lockId,
              ProviderCircuit.RELEASED)
          .isPresent();
    }
    return circuit.call(() -> provider.release(grant), lockId, ProviderCircuit.RELEASED);
  }

  /**
   * Sends the release of a held lease through {@link LockProvider#releaseAsync}. Never throws: the
   * outcome, a failure included, is read with {@link #ended} once the stage completes.
   *
   * @return what the provider answers: {@code false} when it no longer held the lease
   */
  CompletionStage<Boolean> endAsync(LeaseGrant grant) {
    try {
      return circuit.callAsync(
          () -> provider.releaseAsync(grant), lockId, ProviderCircuit.RELEASED);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * What an end of the lease ({@link #endNow}, {@link #endAsync}) means for the lease. A failure is
   * told to listeners and logged, never thrown; the lease then ends by its TTL.
   *
   * @param released the provider's answer, when it answered
   * @param error what the call failed with, else {@code null}
   * @return {@code false} when the provider no longer held the lease (expired or taken over)
   */
  boolean ended(@Nullable Boolean released, @Nullable Throwable error, LockEvent event) {
    if (error == null) {
      return released == null || released;
    }
    RuntimeException e = Causes.unwrapCompletion(error);
    if (e instanceof ProviderDownException) {
      LOG.debug("{}; the lease ends by its ttl", e.getMessage());
      return true;
    }
    listeners.error(event, e);
    if (ProviderCircuit.opensCircuit(e)) {
      LOG.debug(
          "Releasing lock {} failed; it will expire by its ttl", LockIdText.quoted(lockId), e);
    } else {
      LOG.warn(
          "Releasing lock {} failed; it will expire by its ttl: {}",
          LockIdText.quoted(lockId),
          Causes.oneLine(e));
      LOG.debug("Releasing lock {} failed", LockIdText.quoted(lockId), e);
    }
    return true;
  }

  /** Logs a release whose answer came after the lease's deadline had ended it. */
  void endedByTtl() {
    LOG.debug(
        "Lock {} ended by its ttl before the release was confirmed", LockIdText.quoted(lockId));
  }

  /**
   * Whether the provider is known to be down: then a release is not run on the holder's thread,
   * where it would wait for the client's timeout to fail; the lease ends by its ttl on the store, a
   * minimum hold still owed included (the store cannot be told to shorten or extend it now).
   */
  boolean skipRelease() {
    if (circuit.isUp()) {
      return false;
    }
    LOG.debug(
        "Lock {} not released: provider {} is down; the lease ends by its ttl",
        LockIdText.quoted(lockId),
        circuit.name());
    return true;
  }
}
