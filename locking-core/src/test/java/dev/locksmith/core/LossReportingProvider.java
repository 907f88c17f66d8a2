package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A real in-memory provider that, like a session-based provider whose connection dropped, reports
 * every lease it granted lost on demand.
 */
final class LossReportingProvider extends ForwardingProvider {
  private final List<Consumer<LeaseGrant>> callbacks = new CopyOnWriteArrayList<>();
  private final List<LeaseGrant> granted = new CopyOnWriteArrayList<>();
  private volatile boolean lostOnGrant;

  LossReportingProvider(LockProvider delegate) {
    super(delegate);
  }

  /** From now on, reports each lease lost before returning its grant, as a racing drop would. */
  void reportLostOnGrant() {
    lostOnGrant = true;
  }

  /** Reports the leases granted on one lock id lost. */
  void reportLost(String lockId) {
    for (LeaseGrant grant : granted) {
      if (grant.lockId().equals(lockId)) {
        delegate.release(grant);
        callbacks.forEach(c -> c.accept(grant));
      }
    }
  }

  void reportLost() {
    for (LeaseGrant grant : granted) {
      delegate.release(grant);
      callbacks.forEach(c -> c.accept(grant));
    }
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return granted(delegate.tryAcquire(request));
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    return granted(delegate.acquire(request, timeout));
  }

  private Optional<LeaseGrant> granted(Optional<LeaseGrant> grant) {
    grant.ifPresent(granted::add);
    if (lostOnGrant) {
      grant.ifPresent(g -> callbacks.forEach(c -> c.accept(g)));
    }
    return grant;
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
}
