package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/** A real in-memory provider whose release waits for a gate, as a slow round trip does. */
final class GatedReleaseProvider implements LockProvider {
  private final LockProvider delegate;
  private final CountDownLatch releasing;
  private final CountDownLatch gate;
  volatile boolean released;

  GatedReleaseProvider(LockProvider delegate, CountDownLatch releasing, CountDownLatch gate) {
    this.delegate = delegate;
    this.releasing = releasing;
    this.gate = gate;
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
    releasing.countDown();
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockProviderException("interrupted");
    }
    boolean result = delegate.release(lease);
    released = true;
    return result;
  }

  @Override
  public LockStatus status(String lockId) {
    return delegate.status(lockId);
  }

  @Override
  public String description() {
    return "gated " + delegate.description();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
