package dev.locksmith.core;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A real provider (in memory by default) behind a switch: while {@link #down} is set every call
 * fails as a client's does when its server is gone, with a message of many lines (a script and a
 * buffer dump, as Redis clients write them). Counts the calls that reach it.
 */
final class OutageProvider implements LockProvider {
  /** What the failure says: its first line is the one-line cause, the rest must never be logged. */
  static final String FAILURE =
      "Unable to connect to 127.0.0.1:1: connection refused\n"
          + "  script: local v = redis.call('get', KEYS[1]); if v == false then return nil end\n"
          + "  buffer: 2a 33 0d 0a 24 34 0d 0a 45 56 41 4c";

  private final LockProvider store;
  private final String description;
  final AtomicBoolean down = new AtomicBoolean();
  final AtomicReference<Supplier<RuntimeException>> failure =
      new AtomicReference<>(() -> new LockProviderException(FAILURE));

  /**
   * Acquisitions wait on this gate (at most 10 s) before answering, as calls to a server that does
   * not answer wait for the client's timeout.
   */
  final AtomicReference<CountDownLatch> lockGate = new AtomicReference<>(new CountDownLatch(0));

  /** Status calls (probes) wait on this gate before answering. */
  final AtomicReference<CountDownLatch> statusGate = new AtomicReference<>(new CountDownLatch(0));

  final AtomicInteger lockCalls = new AtomicInteger();
  final AtomicInteger renewCalls = new AtomicInteger();
  final AtomicInteger releaseCalls = new AtomicInteger();
  final AtomicInteger statusCalls = new AtomicInteger();
  final AtomicInteger statusDone = new AtomicInteger();
  final AtomicBoolean closed = new AtomicBoolean();
  // Thrown once by the next status call (a probe), as a broken class path or a full heap does.
  final AtomicReference<@Nullable Error> nextStatusError = new AtomicReference<>();
  // Whether close() throws, as a client failing to shut down does.
  final AtomicBoolean closeFails = new AtomicBoolean();
  // Whether close() ran with the thread's interrupt flag set.
  final AtomicBoolean closedInterrupted = new AtomicBoolean();

  OutageProvider(String description) {
    this(description, MemoryLockProvider.isolated());
  }

  OutageProvider(String description, LockProvider store) {
    this.description = description;
    this.store = store;
  }

  private void waitAtLockGate() {
    try {
      lockGate.get().await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void check() {
    if (down.get()) {
      throw failure.get().get();
    }
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    lockCalls.incrementAndGet();
    waitAtLockGate();
    check();
    return store.tryAcquire(request);
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    lockCalls.incrementAndGet();
    waitAtLockGate();
    check();
    return store.acquire(request, timeout);
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    renewCalls.incrementAndGet();
    check();
    return store.renew(lease, ttl);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    releaseCalls.incrementAndGet();
    check();
    return store.release(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    statusCalls.incrementAndGet();
    try {
      statusGate.get().await();
      Error error = nextStatusError.getAndSet(null);
      if (error != null) {
        throw error;
      }
      check();
      return store.status(lockId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockProviderException("interrupted");
    } finally {
      statusDone.incrementAndGet();
    }
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public void close() {
    closedInterrupted.set(Thread.currentThread().isInterrupted());
    closed.set(true);
    store.close();
    if (closeFails.get()) {
      throw new IllegalStateException("client shut down badly");
    }
  }
}
