package dev.locksmith.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The holds on one lease: its holder's own, dropped once when the holder closes it, and one for
 * every {@code CompletionStage} returned by a reentered call. The provider's release happens when
 * the last hold is dropped.
 */
final class LeaseHolds {
  private static final VarHandle HOLDS =
      FieldHandles.of(MethodHandles.lookup(), "holds", int.class);
  private static final VarHandle HOLDER_CLOSED =
      FieldHandles.of(MethodHandles.lookup(), "holderClosed", boolean.class);

  // Fields, not atomic objects: holds are made per lease.
  @SuppressWarnings("unused") // through HOLDS
  private volatile int holds = 1;

  private volatile boolean holderClosed;

  /** Marks the holder closed; {@code true} the first time only, when the holder's hold may drop. */
  boolean closeHolder() {
    return HOLDER_CLOSED.compareAndSet(this, false, true);
  }

  /** Whether the holder closed the lease (retained results may still hold it). */
  boolean isHolderClosed() {
    return holderClosed;
  }

  /**
   * Adds a hold for a result that completes later.
   *
   * @param drop what dropping a hold does for the lease
   * @return the action that drops this hold; running it more than once does nothing
   */
  Runnable retain(Runnable drop) {
    HOLDS.getAndAdd(this, 1);
    AtomicBoolean dropped = new AtomicBoolean();
    return () -> {
      if (dropped.compareAndSet(false, true)) {
        drop.run();
      }
    };
  }

  /** Drops one hold; {@code true} when it was the last. */
  boolean drop() {
    return (int) HOLDS.getAndAdd(this, -1) == 1;
  }
}
