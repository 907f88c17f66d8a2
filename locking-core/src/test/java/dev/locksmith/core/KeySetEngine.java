package dev.locksmith.core;

import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An engine for the tests that lock several keys at once: {@link ConcatKeys} keys, its default
 * provider in front of an isolated memory store, every event recorded, and a pool for callers that
 * wait. Closing it stops the pool and the engine.
 */
final class KeySetEngine implements AutoCloseable {
  /** The accounts' lock, waiting up to 20 s; its keys are the accounts. */
  static final LockOptions ACCT = LockOptions.named("acct").withWaitTimeout(Duration.ofSeconds(20));

  final MemoryLockProvider memory;
  final RecordingListener events = new RecordingListener();
  final Locksmith locksmith;
  final ExecutorService pool;

  /**
   * An engine whose default provider is {@code provider}, over {@code memory}.
   *
   * @param memory the store the locks end up in
   * @param provider the engine's default provider: the store itself, or one passing calls to it
   * @param threads how many callers may wait at once
   */
  KeySetEngine(MemoryLockProvider memory, LockProvider provider, int threads) {
    this.memory = memory;
    this.locksmith =
        Locksmith.builder()
            .keyLanguage(ConcatKeys.LANGUAGE)
            .defaultProvider(provider)
            .listener(events)
            .build();
    this.pool = Executors.newFixedThreadPool(threads);
  }

  /** The lock ids the store holds, sorted. */
  List<String> held() {
    return memory.listHeld().orElseThrow().stream().map(LockStatus::lockId).sorted().toList();
  }

  /** Takes {@code lockId} on the store as another owner would, for 30 s. */
  LeaseGrant takenByAnother(String lockId) {
    return memory.tryAcquire(LockRequest.of(lockId, Duration.ofSeconds(30))).orElseThrow();
  }

  /**
   * Starts a call on the pool that waits for its keys, and returns once it waits on {@code busy}.
   *
   * @return the ids of the leases the call held, in lock order
   */
  Future<List<String>> waitingOn(String busy, LockOptions options) {
    Future<List<String>> waiting =
        pool.submit(
            () ->
                locksmith.call(
                    options, () -> Locks.current().leases().stream().map(Lease::lockId).toList()));
    await().atMost(Duration.ofSeconds(10)).until(() -> memory.status(busy).waiters() > 0);
    return waiting;
  }

  @Override
  public void close() {
    pool.shutdownNow();
    locksmith.close();
  }
}
