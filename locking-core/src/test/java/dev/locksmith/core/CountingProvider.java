package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real provider passed through, every call recorded by name ({@code tryAcquireAll 3} for a set of
 * three) but the engine's outage probes; {@link #tryAcquireAll} goes to the provider's own.
 */
final class CountingProvider extends ForwardingProvider {
  final List<String> calls = new CopyOnWriteArrayList<>();

  CountingProvider(LockProvider delegate) {
    super(delegate);
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    calls.add("tryAcquire " + request.lockId());
    return super.tryAcquire(request);
  }

  @Override
  public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    calls.add("tryAcquireAll " + requests.size());
    return delegate.tryAcquireAll(requests);
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    calls.add("acquire " + request.lockId());
    return super.acquire(request, timeout);
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    calls.add("renew " + lease.lockId());
    return super.renew(lease, ttl);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    calls.add("release " + lease.lockId());
    return super.release(lease);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    calls.add("release " + lease.lockId());
    return delegate.releaseAsync(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    if (!lockId.equals(ProviderCircuit.PROBE_LOCK_ID)) {
      calls.add("status " + lockId);
    }
    return super.status(lockId);
  }
}
