package dev.locksmith.benchmarks.renewal;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A real provider passed through, counting its renewal calls: each {@code renew} is one round trip,
 * each {@code renewAll} one batch (one script, one pipelined write, one pass).
 */
final class CountingProvider implements LockProvider {
  private final LockProvider delegate;
  final LongAdder renewCalls = new LongAdder();
  final LongAdder renewAllCalls = new LongAdder();
  final LongAdder leasesRenewed = new LongAdder();

  CountingProvider(LockProvider delegate) {
    this.delegate = delegate;
  }

  /**
   * Renewal round trips so far: single renewals, and batches where the provider takes a batch in
   * one (else each lease of a batch is one).
   */
  long roundTrips() {
    return renewCalls.sum() + (batches() ? renewAllCalls.sum() : leasesRenewed.sum());
  }

  /** Whether the provider renews a batch in one round trip (it overrides {@code renewAll}). */
  boolean batches() {
    try {
      return delegate.getClass().getMethod("renewAll", List.class).getDeclaringClass()
          != LockProvider.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return delegate.tryAcquire(request);
  }

  @Override
  public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    return delegate.tryAcquireAll(requests);
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    return delegate.acquire(request, timeout);
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    renewCalls.increment();
    leasesRenewed.increment();
    return delegate.renew(lease, ttl);
  }

  @Override
  public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    renewAllCalls.increment();
    leasesRenewed.add(requests.size());
    return delegate.renewAll(requests);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    return delegate.release(lease);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    return delegate.releaseAsync(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    return delegate.status(lockId);
  }

  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    return delegate.onLeaseLost(callback);
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
