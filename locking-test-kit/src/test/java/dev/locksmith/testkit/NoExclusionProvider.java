package dev.locksmith.testkit;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A broken provider that grants every request at once, so that nothing is excluded. */
final class NoExclusionProvider implements LockProvider {
  private final AtomicLong tokens = new AtomicLong();

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return Optional.of(
        new LeaseGrant(
            request.lockId(),
            request.ownerToken(),
            tokens.incrementAndGet(),
            request.ttl(),
            System.nanoTime() + request.ttl().toNanos()));
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) {
    return tryAcquire(request);
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return Optional.of(lease.renewed(ttl, System.nanoTime() + ttl.toNanos()));
  }

  @Override
  public boolean release(LeaseGrant lease) {
    return true;
  }

  @Override
  public LockStatus status(String lockId) {
    return new LockStatus(lockId, null, 0);
  }

  @Override
  public String description() {
    return "no exclusion";
  }

  @Override
  public void close() {}
}
