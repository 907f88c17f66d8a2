package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.Uninterruptibly;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an engine closes, in order: it takes no more locks; waits, within the shutdown timeout, for a
 * grant arriving as it closes, for the locked calls still running and for every release sent to be
 * confirmed or ended by its deadline; then stops probing and renewing, interrupts its own threads
 * and waits for their provider calls (for the rest of the timeout, at least 1 s); and last closes
 * the providers it created. What is still held or unconfirmed then is left to end by its TTL.
 */
final class EngineShutdown {
  private static final Logger LOG = LoggerFactory.getLogger(Locksmith.class);
  // The least time close gives its own threads' provider calls (probes, releases) to end.
  private static final Duration MIN_SETTLE = Duration.ofSeconds(1);
  private final GrantGate gate;
  private final LeaseKeeper keeper;
  private final ProviderCircuits circuits;
  private final Duration timeout;
  private final List<LockProvider> ownedProviders;

  EngineShutdown(
      GrantGate gate,
      LeaseKeeper keeper,
      ProviderCircuits circuits,
      Duration timeout,
      List<LockProvider> ownedProviders) {
    this.gate = gate;
    this.keeper = keeper;
    this.circuits = circuits;
    this.timeout = timeout;
    this.ownedProviders = List.copyOf(ownedProviders);
  }

  /** Closes the engine; only the first call does anything. */
  void run() {
    if (!gate.close()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      awaitLockedWork(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    circuits.stop();
    // Bounded waits, each needed (no provider call after close, nothing cut by a closed client):
    // an interrupt, of the caller's or above, must not cut them short.
    Uninterruptibly.call(() -> stopThreadsThenCloseProviders(deadline));
  }

  /** Whether the engine's threads ended in time; the providers are closed either way. */
  private boolean stopThreadsThenCloseProviders(long deadline) {
    boolean stopped = stopThreads(deadline);
    for (LockProvider provider : ownedProviders) {
      try {
        provider.close();
      } catch (RuntimeException e) {
        // The others are closed all the same: their clients and threads must not outlive the
        // engine.
        LOG.warn("Closing lock provider {} failed: {}", provider.description(), e.toString());
      }
    }
    return stopped;
  }

  private void awaitLockedWork(long deadline) throws InterruptedException {
    // A grant that arrived as the engine closed is a watched lease by then, or given back.
    if (!gate.awaitGrantsInUse(timeout)) {
      LOG.warn(
          "A lock granted as the engine closed was still being taken after {}; it is given"
              + " back when that ends",
          Durations.format(timeout));
    }
    int running = keeper.runningCalls();
    if (running > 0) {
      LOG.info(
          "Waiting up to {} for {} locked call(s) to end before closing",
          Durations.format(timeout),
          running);
      if (!keeper.awaitNoRunningCalls(restUntil(deadline))) {
        LOG.warn(
            "{} locked call(s) still running after {}; their leases end by their ttl",
            keeper.runningCalls(),
            Durations.format(timeout));
      }
    }
    InFlight pending = keeper.pendingReleases();
    if (pending.count() > 0 && !pending.await(restUntil(deadline))) {
      LOG.warn(
          "{} release(s) unconfirmed after {}; those leases end by their ttl",
          pending.count(),
          Durations.format(timeout));
    }
  }

  /**
   * Interrupts the engine's background tasks (a start-up or outage probe, a release handed over, a
   * renewal) and waits for them, so that none calls a provider after close returns.
   */
  private boolean stopThreads(long deadline) {
    Duration rest = restUntil(deadline);
    Duration settle = rest.compareTo(MIN_SETTLE) < 0 ? MIN_SETTLE : rest;
    if (!keeper.close(settle)) {
      LOG.warn(
          "A provider call of the engine's own threads was still running {} after close;"
              + " it ignored the interrupt",
          Durations.format(settle));
      return false;
    }
    return true;
  }

  private static Duration restUntil(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }
}
