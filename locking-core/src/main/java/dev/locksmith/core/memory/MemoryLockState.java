package dev.locksmith.core.memory;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One lock's state in a {@link MemoryLockStore}: its holder and its queue of waiters, handed the
 * lock in arrival order. The state is its own mutex (one object less per lock taken); every method
 * but {@link #lock()} needs it held. Times are {@link System#nanoTime()} readings.
 */
final class MemoryLockState extends ReentrantLock {
  private static final long serialVersionUID = 1L;

  private record Holding(LockRequest request, long fencingToken, long expiresAt) {}

  private final LongSupplier tokens;
  // Made for the first waiter: most locks are taken and freed without one.
  private @Nullable ArrayDeque<MemoryLockStore.Waiter> waiters;
  private @Nullable Holding holder;
  // Removed from the store: a caller that locked it meanwhile looks the lock up again.
  private boolean retired;

  /**
   * @param tokens the store's fencing tokens
   */
  MemoryLockState(LongSupplier tokens) {
    this.tokens = tokens;
  }

  boolean isRetired() {
    return retired;
  }

  /** Retires the state if it has no holder and no waiter, and says whether it did. */
  boolean retireIfIdle() {
    if (holder == null && !hasWaiters()) {
      retired = true;
    }
    return retired;
  }

  /** Whether no one holds the lock and no one waits for it, once a due expiry is done. */
  boolean isFreeAt(long now) {
    expireIfDue(now);
    return holder == null && !hasWaiters();
  }

  private boolean hasWaiters() {
    ArrayDeque<MemoryLockStore.Waiter> queue = waiters;
    return queue != null && !queue.isEmpty();
  }

  void enqueue(MemoryLockStore.Waiter waiter) {
    ArrayDeque<MemoryLockStore.Waiter> queue = waiters;
    if (queue == null) {
      queue = new ArrayDeque<>(2);
      waiters = queue;
    }
    queue.add(waiter);
  }

  void withdraw(MemoryLockStore.Waiter waiter) {
    ArrayDeque<MemoryLockStore.Waiter> queue = waiters;
    if (queue != null) {
      queue.remove(waiter);
    }
  }

  void expireIfDue(long now) {
    if (holder != null && now - holder.expiresAt >= 0) {
      holder = null;
      handOff(now);
    }
  }

  @Nullable LeaseGrant grantIfFree(LockRequest request, long now) {
    return isFreeAt(now) ? grant(request, now) : null;
  }

  /** Grants the lock to {@code request}; the caller saw it free. */
  LeaseGrant grant(LockRequest request, long now) {
    long expiresAt = now + request.ttl().toNanos();
    Holding holding = new Holding(request, tokens.getAsLong(), expiresAt);
    holder = holding;
    return request.granted(holding.fencingToken, now);
  }

  private void handOff(long now) {
    ArrayDeque<MemoryLockStore.Waiter> queue = waiters;
    MemoryLockStore.Waiter next;
    while (holder == null && queue != null && (next = queue.poll()) != null) {
      if (!next.grant().isDone()) {
        next.grant().complete(grant(next.request(), now));
      }
    }
  }

  /** Whether {@code lease} still holds the lock at {@code now}, once a due expiry is done. */
  private boolean heldAt(LeaseGrant lease, long now) {
    expireIfDue(now);
    return holder != null
        && holder.fencingToken == lease.fencingToken()
        && holder.request.ownerToken().equals(lease.ownerToken());
  }

  /** Nanoseconds until the current holder's lease runs out, or {@link Long#MAX_VALUE} for none. */
  long nanosUntilHolderExpires(long now) {
    Holding h = holder;
    return h == null ? Long.MAX_VALUE : h.expiresAt - now;
  }

  /** Extends {@code lease} to end {@code ttl} from {@code now}, if it still holds the lock. */
  @Nullable LeaseGrant renew(LeaseGrant lease, Duration ttl, long now) {
    if (!heldAt(lease, now)) {
      return null;
    }
    Holding current = holder;
    if (current == null) {
      return null; // not reached: held, so there is a holder
    }
    long expiresAt = now + ttl.toNanos();
    holder = new Holding(current.request, current.fencingToken, expiresAt);
    return lease.renewed(ttl, expiresAt);
  }

  /** Frees the lock if {@code lease} still holds it, handing it to the first waiter. */
  boolean release(LeaseGrant lease, long now) {
    if (!heldAt(lease, now)) {
      return false;
    }
    holder = null;
    handOff(now);
    return true;
  }

  LockStatus status(String lockId, long now) {
    expireIfDue(now);
    Holding h = holder;
    LockStatus.Holder current =
        h == null
            ? null
            : new LockStatus.Holder(
                h.request.owner(), h.fencingToken, Duration.ofNanos(h.expiresAt - now));
    ArrayDeque<MemoryLockStore.Waiter> queue = waiters;
    return new LockStatus(lockId, current, queue == null ? 0 : queue.size());
  }
}
