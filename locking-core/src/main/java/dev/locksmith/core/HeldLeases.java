package dev.locksmith.core;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;

/** The leases the current thread runs under, innermost first: reentrancy and {@link Locks}. */
final class HeldLeases {
  private static final ThreadLocal<ArrayDeque<ActiveLease>> STACK =
      ThreadLocal.withInitial(ArrayDeque::new);
  // Leases whose method returned but whose release waits (for the transaction the call joined):
  // still held by this thread, so a later call on the same lock in that transaction reenters.
  private static final ThreadLocal<ArrayDeque<ActiveLease>> DEFERRED =
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
    ActiveLease held = findIn(STACK.get(), provider, lockId);
    return held != null ? held : findIn(DEFERRED.get(), provider, lockId);
  }

  private static @Nullable ActiveLease findIn(
      ArrayDeque<ActiveLease> leases, Object provider, String lockId) {
    purgeClosed(leases);
    Iterator<ActiveLease> it = leases.iterator();
    while (it.hasNext()) {
      ActiveLease lease = it.next();
      if (lease.provider() == provider && lease.lockId().equals(lockId) && lease.isValid()) {
        return lease;
      }
    }
    return null;
  }

  /** Keeps a lease whose release was deferred findable on this thread until it is closed. */
  static void deferred(ActiveLease lease) {
    ArrayDeque<ActiveLease> deferred = DEFERRED.get();
    purgeClosed(deferred);
    deferred.push(lease);
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
    ArrayDeque<ActiveLease> deferred = DEFERRED.get();
    deferred.removeFirstOccurrence(lease);
    if (deferred.isEmpty()) {
      DEFERRED.remove();
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
