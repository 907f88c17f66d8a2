package dev.locksmith.testkit;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The equivalent of a faulty network for a provider that has none: every call reaches the real
 * store, and its answer is then held back while frozen, or replaced by a failure when lost.
 */
final class StallingProvider implements LockProvider, FaultyPath {
  private final LockProvider store;
  private final ReentrantLock gate = new ReentrantLock();
  private final Condition thawed = gate.newCondition();
  private boolean frozen;
  private final AtomicBoolean loseNext = new AtomicBoolean();

  StallingProvider(LockProvider store) {
    this.store = store;
  }

  @Override
  public LockProvider provider() {
    return this;
  }

  @Override
  public void freezeReplies() {
    gate.lock();
    try {
      frozen = true;
    } finally {
      gate.unlock();
    }
  }

  @Override
  public void thaw() {
    gate.lock();
    try {
      frozen = false;
      thawed.signalAll();
    } finally {
      gate.unlock();
    }
  }

  @Override
  public void loseNextReply() {
    loseNext.set(true);
  }

  /** Hands an answer back as the path allows: held while frozen, replaced when lost. */
  private <T> T answer(T reply, String operation) {
    gate.lock();
    try {
      while (frozen) {
        thawed.awaitUninterruptibly();
      }
    } finally {
      gate.unlock();
    }
    if (loseNext.compareAndSet(true, false)) {
      throw new LockProviderException("the reply to " + operation + " was lost (injected fault)");
    }
    return reply;
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return answer(store.tryAcquire(request), "tryAcquire " + request.lockId());
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    return answer(store.acquire(request, timeout), "acquire " + request.lockId());
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return answer(store.renew(lease, ttl), "renew " + lease.lockId());
  }

  @Override
  public boolean release(LeaseGrant lease) {
    return answer(store.release(lease), "release " + lease.lockId());
  }

  @Override
  public LockStatus status(String lockId) {
    return answer(store.status(lockId), "status " + lockId);
  }

  @Override
  public Optional<List<LockStatus>> listHeld() {
    return answer(store.listHeld(), "listHeld");
  }

  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    return store.onLeaseLost(callback);
  }

  @Override
  public Optional<Duration> pauseLimit() {
    return store.pauseLimit();
  }

  @Override
  public String description() {
    return store.description() + " (stalling)";
  }

  @Override
  public void close() {
    thaw();
    store.close();
  }
}
