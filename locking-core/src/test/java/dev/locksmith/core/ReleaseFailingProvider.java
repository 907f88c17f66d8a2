package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;

/** A real in-memory provider whose release fails, as a provider does when its server is gone. */
final class ReleaseFailingProvider implements LockProvider {
  private final LockProvider delegate;

  ReleaseFailingProvider(LockProvider delegate) {
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
    throw new LockProviderException("release failed");
  }

  @Override
  public LockStatus status(String lockId) {
    return delegate.status(lockId);
  }

  @Override
  public String description() {
    return "failing " + delegate.description();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
