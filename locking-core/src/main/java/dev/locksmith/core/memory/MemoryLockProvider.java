package dev.locksmith.core.memory;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Deadlines;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockRequests;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Leases held in this JVM's memory, with the same semantics as the distributed providers: TTLs on
 * the monotonic clock, owner-checked renew and release, fencing tokens, and FIFO waiters handed the
 * lock when it is released or its lease expires. For tests and single-JVM applications.
 *
 * <p>Providers created for the same store name ({@code mem:} or {@code mem:NAME}) share their
 * locks, so two application contexts in one JVM contend as two hosts would.
 */
public final class MemoryLockProvider implements LockProvider {
  private static final Map<String, MemoryLockStore> STORES = new ConcurrentHashMap<>();

  private final String name;
  private final MemoryLockStore store;
  private final Set<MemoryLockStore.Waiter> waiters = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private MemoryLockProvider(String name, MemoryLockStore store) {
    this.name = name;
    this.store = store;
  }

  /**
   * A provider over the JVM-wide store of the given name; the empty name is {@code mem:}.
   *
   * @param name the store's name
   * @return the provider
   */
  public static MemoryLockProvider shared(String name) {
    return new MemoryLockProvider(name, STORES.computeIfAbsent(name, n -> new MemoryLockStore()));
  }

  /**
   * Forgets the JVM-wide store of the given name, as if the process that kept it restarted: its
   * locks are gone and providers made later get a new store. Providers made before keep the old
   * one. Fencing tokens of the new store still exceed the old store's (see the class comment).
   *
   * @param name the store's name
   */
  public static void discardShared(String name) {
    STORES.remove(name);
  }

  /**
   * A provider over a store of its own, shared with nobody.
   *
   * @return the provider
   */
  public static MemoryLockProvider isolated() {
    return new MemoryLockProvider("isolated", new MemoryLockStore());
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    checkOpen();
    return Optional.ofNullable(store.tryGrant(request));
  }

  /**
   * Takes every lock of {@code requests} if all are free, or none, in one step: every lock's state
   * is locked at once, so no other request sees part of the set taken.
   */
  @Override
  public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    checkOpen();
    LockRequests.checkBatch(requests);
    return Optional.ofNullable(store.tryGrantAll(requests)).map(List::copyOf);
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    checkOpen();
    long deadline = Deadlines.nanosAfter(timeout);
    LeaseGrant free = store.tryGrant(request);
    if (free != null) {
      return Optional.of(free); // free: no waiter to make, queue or withdraw
    }
    MemoryLockStore.Waiter waiter = store.grantOrEnqueue(request);
    waiters.add(waiter);
    if (closed) {
      waiters.remove(waiter);
      store.cancel(waiter);
      checkOpen();
    }
    try {
      while (true) {
        long slice = Math.min(deadline - System.nanoTime(), store.nanosUntilHolderExpires(waiter));
        if (deadline - System.nanoTime() <= 0) {
          return Optional.ofNullable(store.cancel(waiter));
        }
        try {
          return Optional.of(waiter.grant().get(Math.max(slice, 1), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
          store.expireHolder(waiter.request().lockId());
        }
      }
    } catch (InterruptedException e) {
      LeaseGrant granted = store.cancel(waiter);
      if (granted != null) {
        release(granted);
      }
      throw e;
    } catch (ExecutionException | CancellationException e) {
      if (closed) {
        throw closedError();
      }
      throw new IllegalStateException("waiter for " + request.lockId() + " failed", e);
    } finally {
      waiters.remove(waiter);
    }
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return Optional.ofNullable(store.renew(lease, ttl));
  }

  @Override
  public boolean release(LeaseGrant lease) {
    return store.release(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    return store.status(lockId);
  }

  @Override
  public Optional<List<LockStatus>> listHeld() {
    return Optional.of(store.listHeld());
  }

  @Override
  public String description() {
    return name.isEmpty() ? "mem:" : "mem:" + name;
  }

  /**
   * Closes this provider: its waiters stop waiting at once with a {@link LockProviderException},
   * and it takes no more requests. The store and the locks held in it outlive the provider, as a
   * server outlives its clients.
   */
  @Override
  public void close() {
    closed = true;
    for (MemoryLockStore.Waiter waiter : waiters) {
      LeaseGrant granted = store.cancel(waiter);
      if (granted != null) {
        store.release(granted);
      }
      waiter.grant().completeExceptionally(closedError());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw closedError();
    }
  }

  private LockProviderException closedError() {
    return new LockProviderException("The provider " + description() + " was closed");
  }
}
