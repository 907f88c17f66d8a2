package dev.locksmith.core;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;

/** The leases the current thread runs under, innermost first: reentrancy and {@link Locks}. */
final class HeldLeases {
  private static final ThreadLocal<ArrayDeque<ActiveLease>> STACK =
      ThreadLocal.withInitial(ArrayDeque::new);

  private HeldLeases() {}

  static @Nullable ActiveLease current() {
    ArrayDeque<ActiveLease> stack = STACK.get();
    purgeClosed(stack);
    return stack.peek();
  }

  /** Drops leases closed on another thread (explicit leases may be closed anywhere). */
  private static void purgeClosed(ArrayDeque<ActiveLease> stack) {
    stack.removeIf(ActiveLease::isClosed);
  }

  /**
   * The valid lease this thread already holds on the lock id through the same provider, if any. A
   * lease that was lost is not reentered: the caller acquires anew.
   */
  static @Nullable ActiveLease find(Object provider, String lockId) {
    ArrayDeque<ActiveLease> stack = STACK.get();
    purgeClosed(stack);
    Iterator<ActiveLease> it = stack.iterator();
    while (it.hasNext()) {
      ActiveLease lease = it.next();
      if (lease.provider() == provider && lease.lockId().equals(lockId) && lease.isValid()) {
        return lease;
      }
    }
    return null;
  }

  static void push(ActiveLease lease) {
    STACK.get().push(lease);
  }

  /** Removes an explicit lease when it is closed, if this thread registered it. */
  static void remove(ActiveLease lease) {
    ArrayDeque<ActiveLease> stack = STACK.get();
    stack.removeFirstOccurrence(lease);
    if (stack.isEmpty()) {
      STACK.remove();
    }
  }

  /** Removes the lease pushed for a call, even if the call left other leases above it. */
  static void pop(ActiveLease lease) {
    ArrayDeque<ActiveLease> stack = STACK.get();
    stack.removeFirstOccurrence(lease);
    if (stack.isEmpty()) {
      STACK.remove();
    }
  }
}
