package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A provider on virtual time whose answers a test scripts: grants with deadlines on the test's
 * ticker, renewals that hang until released, grants that arrive late. Records every call.
 */
final class ScriptedProvider extends VirtualTimeProvider {
  // Each acquisition may be shaped: its deadline moved, time advanced before it returns.
  final ConcurrentLinkedQueue<UnaryOperator<LeaseGrant>> grantShapes =
      new ConcurrentLinkedQueue<>();
  final AtomicReference<CountDownLatch> renewGate = new AtomicReference<>(new CountDownLatch(0));
  final ConcurrentLinkedQueue<Boolean> renewAnswers = new ConcurrentLinkedQueue<>();
  final List<Duration> renewTtls = new CopyOnWriteArrayList<>();
  final CountDownLatch renewStarted = new CountDownLatch(1);

  ScriptedProvider(VirtualTicker ticker) {
    super(ticker, "scripted");
  }

  /** Renewals block from now on until {@link #answerRenewals()}. */
  void hangRenewals() {
    renewGate.set(new CountDownLatch(1));
  }

  void answerRenewals() {
    renewGate.get().countDown();
  }

  private LeaseGrant grant(LockRequest request) {
    LeaseGrant grant = grant(request, ticker.read() + request.ttl().toNanos());
    UnaryOperator<LeaseGrant> shape = grantShapes.poll();
    return shape == null ? grant : shape.apply(grant);
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    calls.add("tryAcquire");
    return Optional.of(grant(request));
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) {
    calls.add("acquire");
    return Optional.of(grant(request));
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    calls.add("renew");
    renewTtls.add(ttl);
    long sent = ticker.read();
    renewStarted.countDown();
    try {
      renewGate.get().await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
    Boolean answer = renewAnswers.poll();
    if (answer != null && !answer) {
      return Optional.empty();
    }
    return Optional.of(lease.renewed(ttl, sent + ttl.toNanos()));
  }
}
