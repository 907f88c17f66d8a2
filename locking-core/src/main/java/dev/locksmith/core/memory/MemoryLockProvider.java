package dev.locksmith.core.memory;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  private MemoryLockProvider(String name, MemoryLockStore store) {
    this.name = name;
    this.store = store;
  }

  /** A provider over the JVM-wide store of the given name; the empty name is {@code mem:}. */
  public static MemoryLockProvider shared(String name) {
    return new MemoryLockProvider(name, STORES.computeIfAbsent(name, n -> new MemoryLockStore()));
  }

  /** A provider over a store of its own, shared with nobody. */
  public static MemoryLockProvider isolated() {
    return new MemoryLockProvider("isolated", new MemoryLockStore());
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return Optional.ofNullable(store.tryGrant(request));
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    MemoryLockStore.Waiter waiter = store.grantOrEnqueue(request);
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
      throw new IllegalStateException("waiter for " + request.lockId() + " failed", e);
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

  @Override
  public void close() {
    // The store outlives its providers, as a server outlives its clients.
  }
}
