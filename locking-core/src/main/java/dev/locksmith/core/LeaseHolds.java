package dev.locksmith.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The holds on one lease: its holder's own, dropped once when the holder closes it, and one for
 * every {@code CompletionStage} returned by a reentered call. The provider's release happens when
 * the last hold is dropped.
 */
final class LeaseHolds {
  private final AtomicInteger holds = new AtomicInteger(1);
  private final AtomicBoolean holderClosed = new AtomicBoolean();

  /** Marks the holder closed; {@code true} the first time only, when the holder's hold may drop. */
  boolean closeHolder() {
    return holderClosed.compareAndSet(false, true);
  }

  /** Whether the holder closed the lease (retained results may still hold it). */
  boolean isHolderClosed() {
    return holderClosed.get();
  }

  /**
   * Adds a hold for a result that completes later.
   *
   * @param drop what dropping a hold does for the lease
   * @return the action that drops this hold; running it more than once does nothing
   */
  Runnable retain(Runnable drop) {
    holds.incrementAndGet();
    AtomicBoolean dropped = new AtomicBoolean();
    return () -> {
      if (dropped.compareAndSet(false, true)) {
        drop.run();
      }
    };
  }

  /** Drops one hold; {@code true} when it was the last. */
  boolean drop() {
    return holds.decrementAndGet() == 0;
  }
}
