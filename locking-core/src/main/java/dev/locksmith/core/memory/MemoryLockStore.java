package dev.locksmith.core.memory;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The locks of one in-memory store. Each lock's {@link MemoryLockState} is its own {@link
 * ReentrantLock} (never a monitor); a state that becomes idle is retired and removed, so the map
 * holds only locks in use. Fencing tokens come from one counter for the whole store, floored by the
 * clock in microseconds, which keeps them strictly increasing per lock id even after a state is
 * removed or the store replaced.
 */
final class MemoryLockStore {
  private final ConcurrentHashMap<String, MemoryLockState> locks = new ConcurrentHashMap<>();
  private final AtomicLong fencing = new AtomicLong();
  private final LongSupplier tokens = this::nextToken;
  // One function for every lookup: a lambda written at the call would capture this store per call.
  private final Function<String, MemoryLockState> newState = id -> new MemoryLockState(tokens);

  /**
   * A queued request and the future its grant completes. Equal only to itself: it is found in the
   * queue and the provider's set by identity, and hashing its request would cost every call.
   */
  static final class Waiter {
    private final LockRequest request;
    private final CompletableFuture<LeaseGrant> grant = new CompletableFuture<>();

    Waiter(LockRequest request) {
      this.request = request;
    }

    LockRequest request() {
      return request;
    }

    CompletableFuture<LeaseGrant> grant() {
      return grant;
    }
  }

  /**
   * The next fencing token: one more than the last, and never below the wall clock in microseconds,
   * so a store that replaces a discarded one (a "restart") still issues tokens above every earlier
   * one, as long as the clock did not step back and no store ran ahead of it (over a million grants
   * a second, sustained).
   */
  private long nextToken() {
    Instant now = Instant.now();
    long floor = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    while (true) {
      long last = fencing.get();
      long next = Math.max(last + 1, floor);
      if (fencing.compareAndSet(last, next)) {
        return next;
      }
    }
  }

  /** Runs {@code action} under the lock's mutex, retiring the state when it becomes idle. */
  private <T extends @Nullable Object> T locked(
      String lockId, Function<MemoryLockState, T> action) {
    MemoryLockState state = lockLive(lockId);
    try {
      T result = action.apply(state);
      retireIfIdle(lockId, state);
      return result;
    } finally {
      state.unlock();
    }
  }

  /** Retires and removes a state with no holder and no waiter; its mutex is held. */
  private void retireIfIdle(String lockId, MemoryLockState state) {
    if (state.retireIfIdle()) {
      locks.remove(lockId, state);
    }
  }

  @Nullable LeaseGrant tryGrant(LockRequest request) {
    return this.<@Nullable LeaseGrant>locked(
        request.lockId(), s -> s.grantIfFree(request, System.nanoTime()));
  }

  /**
   * Grants every request if all the locks are free (no holder, no waiter), else none: every lock's
   * mutex is held at once, taken in id order so that two such calls cannot deadlock.
   *
   * @param requests distinct lock ids
   * @return the grants in request order, or {@code null} when one lock was busy
   */
  @Nullable List<LeaseGrant> tryGrantAll(List<LockRequest> requests) {
    List<LockRequest> byId =
        requests.stream().sorted(Comparator.comparing(LockRequest::lockId)).toList();
    Map<String, MemoryLockState> states = new HashMap<>();
    List<MemoryLockState> mutexOrder = new ArrayList<>(byId.size());
    try {
      for (LockRequest request : byId) {
        MemoryLockState state = lockLive(request.lockId());
        mutexOrder.add(state);
        states.put(request.lockId(), state);
      }
      long now = System.nanoTime();
      for (MemoryLockState state : mutexOrder) {
        if (!state.isFreeAt(now)) {
          return null;
        }
      }
      List<LeaseGrant> grants = new ArrayList<>(requests.size());
      for (LockRequest request : requests) {
        grants.add(Objects.requireNonNull(states.get(request.lockId())).grant(request, now));
      }
      return grants;
    } finally {
      for (int i = mutexOrder.size() - 1; i >= 0; i--) {
        MemoryLockState state = mutexOrder.get(i);
        retireIfIdle(byId.get(i).lockId(), state);
        state.unlock();
      }
    }
  }

  /** The lock's state with its mutex held and not retired; the caller unlocks it. */
  private MemoryLockState lockLive(String lockId) {
    while (true) {
      MemoryLockState state = locks.computeIfAbsent(lockId, newState);
      state.lock();
      if (!state.isRetired()) {
        return state;
      }
      state.unlock();
    }
  }

  Waiter grantOrEnqueue(LockRequest request) {
    return locked(
        request.lockId(),
        s -> {
          Waiter waiter = new Waiter(request);
          LeaseGrant now = s.grantIfFree(request, System.nanoTime());
          if (now != null) {
            waiter.grant().complete(now);
          } else {
            s.enqueue(waiter);
          }
          return waiter;
        });
  }

  /** Nanoseconds until the current holder's lease runs out; a waiter re-checks then. */
  long nanosUntilHolderExpires(Waiter waiter) {
    return locked(waiter.request().lockId(), s -> s.nanosUntilHolderExpires(System.nanoTime()));
  }

  void expireHolder(String lockId) {
    this.<@Nullable Void>locked(
        lockId,
        s -> {
          s.expireIfDue(System.nanoTime());
          return null;
        });
  }

  /**
   * Withdraws a waiter. Returns the grant when it was granted first (the caller then owns the lease
   * and must use or release it), else {@code null}.
   */
  @Nullable LeaseGrant cancel(Waiter waiter) {
    return this.<@Nullable LeaseGrant>locked(
        waiter.request().lockId(),
        s -> {
          s.withdraw(waiter);
          if (waiter.grant().cancel(false)) {
            return null;
          }
          return waiter.grant().join();
        });
  }

  @Nullable LeaseGrant renew(LeaseGrant lease, Duration ttl) {
    return this.<@Nullable LeaseGrant>locked(
        lease.lockId(), s -> s.renew(lease, ttl, System.nanoTime()));
  }

  boolean release(LeaseGrant lease) {
    return locked(lease.lockId(), s -> s.release(lease, System.nanoTime()));
  }

  /** The held locks, sorted by id. */
  List<LockStatus> listHeld() {
    List<LockStatus> held = new ArrayList<>();
    for (String lockId : new TreeSet<>(locks.keySet())) {
      LockStatus status = status(lockId);
      if (status.holder() != null) {
        held.add(status);
      }
    }
    return held;
  }

  LockStatus status(String lockId) {
    return locked(lockId, s -> s.status(lockId, System.nanoTime()));
  }
}
