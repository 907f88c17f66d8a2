package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the engine still takes leases, and the grants it received and is still making into leases
 * as it closes: closing waits for those ({@link #awaitGrantsInUse}), and a grant that arrives once
 * the engine is closed is given back, as no call may run under a lease that nothing renews or
 * watches.
 */
final class GrantGate {
  private final AtomicBoolean closed = new AtomicBoolean();
  // Grants received and being made into leases: close waits for them (see usingGrants).
  private final InFlight granting = new InFlight();

  /**
   * Takes no more leases from now on.
   *
   * @return whether this call closed it (false when it was closed already)
   */
  boolean close() {
    return closed.compareAndSet(false, true);
  }

  boolean isClosed() {
    return closed.get();
  }

  /**
   * Fails when the engine is closed.
   *
   * @throws IllegalStateException when the engine is closed
   */
  void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("This Locksmith is closed; it takes no more locks");
    }
  }

  /**
   * Waits until no grant received before {@link #close} is still being made into a lease: each is
   * then a lease the keeper watches (a locked call's counted among the running calls) or has been
   * given back.
   *
   * @return whether none is left
   */
  boolean awaitGrantsInUse(Duration timeout) throws InterruptedException {
    return granting.await(timeout);
  }

  /**
   * Marks grants just received as being made into leases, which {@link #awaitGrantsInUse} waits
   * for, to be followed by one {@link #grantsUsed} when this returns. When the engine closed
   * meanwhile, it gives them back instead (released on this thread, last first, best effort) and
   * throws: a closed engine no longer renews or watches leases, so no call may run under them.
   *
   * @throws IllegalStateException when the engine is closed
   */
  void usingGrants(List<LeaseGrant> grants, ProviderCircuit circuit) {
    granting.started();
    if (closed.get()) {
      giveBack(grants, circuit);
    }
  }

  /** Ends what {@link #usingGrants} started. */
  void grantsUsed() {
    granting.ended();
  }

  /**
   * Releases grants that arrived after {@link #close} (on this thread, last first, best effort)
   * before it ends their part of {@link #awaitGrantsInUse}, so that the engine does not close their
   * provider under the releases; then throws.
   */
  private void giveBack(List<LeaseGrant> grants, ProviderCircuit circuit) {
    try {
      for (int k = grants.size() - 1; k >= 0; k--) {
        LateGrants.release(grants.get(k), circuit);
      }
    } finally {
      granting.ended();
    }
    checkOpen();
  }
}
