package dev.locksmith.core;

import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The leases the current thread runs under, innermost first: reentrancy and {@link Locks}. Each
 * thread keeps its (usually empty) deques once made, so a locked call allocates nothing here.
 */
final class HeldLeases {
  private static final ThreadLocal<ArrayDeque<HeldLease>> STACK =
      ThreadLocal.withInitial(() -> new ArrayDeque<>(4));
  // Leases whose method returned but whose release waits (for the transaction the call joined):
  // still held by this thread, so a later call on the same lock in that transaction reenters.
  // Made only on threads that defer a release.
  private static final ThreadLocal<@Nullable ArrayDeque<HeldLease>> DEFERRED = new ThreadLocal<>();

  private HeldLeases() {}

  static @Nullable HeldLease current() {
    ArrayDeque<HeldLease> stack = STACK.get();
    purgeClosed(stack);
    return stack.peek();
  }

  /** Drops leases closed on another thread (explicit leases may be closed anywhere). */
  private static void purgeClosed(ArrayDeque<HeldLease> leases) {
    if (!leases.isEmpty()) {
      leases.removeIf(HeldLease::isClosed);
    }
  }

  /**
   * The valid lease this thread already holds on the lock id through the same provider, if any. A
   * lease that was lost is not reentered: the caller acquires anew.
   */
  static @Nullable ActiveLease find(Object provider, String lockId) {
    ActiveLease held = findIn(STACK.get(), provider, lockId);
    ArrayDeque<HeldLease> deferred = DEFERRED.get();
    return held != null || deferred == null ? held : findIn(deferred, provider, lockId);
  }

  /**
   * The valid lease this thread already holds on the options' one lock through the same provider,
   * if any; none for options with several keys (each key is reentered on its own when acquired).
   * The lock id is made only when this thread holds any lease at all.
   */
  static @Nullable ActiveLease find(Object provider, LockOptions options) {
    if (!options.keys().isEmpty()) {
      return null;
    }
    ArrayDeque<HeldLease> stack = STACK.get();
    ArrayDeque<HeldLease> deferred = DEFERRED.get();
    if (stack.isEmpty() && (deferred == null || deferred.isEmpty())) {
      return null;
    }
    return find(provider, options.lockId());
  }

  private static @Nullable ActiveLease findIn(
      ArrayDeque<HeldLease> leases, Object provider, String lockId) {
    purgeClosed(leases);
    // A copy: finding a lease past its deadline tells the listeners it is lost, on this thread,
    // and one may close it, taking it off this very stack.
    for (HeldLease lease : leases.toArray(new HeldLease[0])) {
      ActiveLease part = lease.part(provider, lockId);
      if (part != null) {
        return part;
      }
    }
    return null;
  }

  /** Keeps a lease whose release was deferred findable on this thread until it is closed. */
  static void deferred(HeldLease lease) {
    ArrayDeque<HeldLease> deferred = DEFERRED.get();
    if (deferred == null) {
      deferred = new ArrayDeque<>(4);
      DEFERRED.set(deferred);
    }
    purgeClosed(deferred);
    deferred.push(lease);
  }

  static void push(HeldLease lease) {
    STACK.get().push(lease);
  }

  /** Removes a lease when it is closed, if this thread holds it. */
  static void remove(HeldLease lease) {
    STACK.get().removeFirstOccurrence(lease);
    ArrayDeque<HeldLease> deferred = DEFERRED.get();
    if (deferred != null) {
      deferred.removeFirstOccurrence(lease);
    }
  }

  /** Removes the lease pushed for a call, even if the call left other leases above it. */
  static void pop(HeldLease lease) {
    STACK.get().removeFirstOccurrence(lease);
  }
}
