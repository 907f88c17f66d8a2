package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The common part of the test providers on virtual time: the ticker, fencing tokens, the record of
 * every call ({@code "release <token>"} for releases), a grant of every request for its whole ttl
 * unless a subclass scripts otherwise, and a store that reports no holder.
 */
abstract class VirtualTimeProvider implements LockProvider {
  final VirtualTicker ticker;
  final List<String> calls = new CopyOnWriteArrayList<>();
  private final AtomicLong fencing = new AtomicLong();
  private final String description;

  VirtualTimeProvider(VirtualTicker ticker, String description) {
    this.ticker = ticker;
    this.description = description;
  }

  /** A grant of the request with the next fencing token, ending at {@code deadlineNanos}. */
  final LeaseGrant grant(LockRequest request, long deadlineNanos) {
    return new LeaseGrant(
        request.lockId(),
        request.ownerToken(),
        fencing.incrementAndGet(),
        request.ttl(),
        deadlineNanos);
  }

  /** Grants the request for its whole ttl from now. */
  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return Optional.of(grant(request, ticker.read() + request.ttl().toNanos()));
  }

  /** As {@link #tryAcquire}: never waits. */
  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) {
    return tryAcquire(request);
  }

  /** Records the release, then {@link #releasing()}; the lease was held. */
  @Override
  public boolean release(LeaseGrant lease) {
    calls.add("release " + lease.fencingToken());
    releasing();
    return true;
  }

  /** What a release does after it is recorded; nothing by default. */
  void releasing() {}

  @Override
  public LockStatus status(String lockId) {
    return new LockStatus(lockId, null, 0);
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public void close() {}
}
