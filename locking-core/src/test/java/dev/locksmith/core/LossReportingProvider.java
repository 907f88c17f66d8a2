package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A real in-memory provider that, like a session-based provider whose connection dropped, reports
 * every lease it granted lost on demand.
 */
final class LossReportingProvider implements LockProvider {
  private final LockProvider delegate;
  private final List<Consumer<LeaseGrant>> callbacks = new CopyOnWriteArrayList<>();
  private final List<LeaseGrant> granted = new CopyOnWriteArrayList<>();

  LossReportingProvider(LockProvider delegate) {
    this.delegate = delegate;
  }

  private volatile boolean lostOnGrant;

  /** From now on, reports each lease lost before returning its grant, as a racing drop would. */
  void reportLostOnGrant() {
    lostOnGrant = true;
  }

  void reportLost() {
    for (LeaseGrant grant : granted) {
      delegate.release(grant);
      callbacks.forEach(c -> c.accept(grant));
    }
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    Optional<LeaseGrant> grant = delegate.tryAcquire(request);
    grant.ifPresent(granted::add);
    if (lostOnGrant) {
      grant.ifPresent(g -> callbacks.forEach(c -> c.accept(g)));
    }
    return grant;
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    Optional<LeaseGrant> grant = delegate.acquire(request, timeout);
    grant.ifPresent(granted::add);
    if (lostOnGrant) {
      grant.ifPresent(g -> callbacks.forEach(c -> c.accept(g)));
    }
    return grant;
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return delegate.renew(lease, ttl);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    return delegate.release(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    return delegate.status(lockId);
  }

  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    callbacks.add(callback);
    return () -> callbacks.remove(callback);
  }

  @Override
  public String description() {
    return "loss-reporting " + delegate.description();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
