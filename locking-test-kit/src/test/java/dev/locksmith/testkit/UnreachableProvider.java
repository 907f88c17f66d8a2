package dev.locksmith.testkit;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;

/** A provider whose store never answers: every call fails as an unreachable store's would. */
final class UnreachableProvider implements LockProvider {

  private static LockProviderException unreachable(String call) {
    return new LockProviderException("unreachable store: " + call + " not answered");
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    throw unreachable("tryAcquire of " + request.lockId());
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) {
    throw unreachable("acquire of " + request.lockId());
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    throw unreachable("renew of " + lease.lockId());
  }

  @Override
  public boolean release(LeaseGrant lease) {
    throw unreachable("release of " + lease.lockId());
  }

  @Override
  public LockStatus status(String lockId) {
    throw unreachable("status of " + lockId);
  }

  @Override
  public String description() {
    return "unreachable";
  }

  @Override
  public void close() {}
}
