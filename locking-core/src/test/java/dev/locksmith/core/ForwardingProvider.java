package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;

/** A real provider passed through, for tests that change one of its calls. */
abstract class ForwardingProvider implements LockProvider {
  final LockProvider delegate;

  ForwardingProvider(LockProvider delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return delegate.tryAcquire(request);
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    return delegate.acquire(request, timeout);
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
  public Optional<Duration> pauseLimit() {
    return delegate.pauseLimit();
  }

  @Override
  public String description() {
    return delegate.description();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
