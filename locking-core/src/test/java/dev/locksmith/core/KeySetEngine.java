package dev.locksmith.core;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An engine for the tests that lock several keys at once: {@link ConcatKeys} keys, its default
 * provider in front of an isolated memory store, every event recorded, and a pool for callers that
 * wait. Closing it stops the pool and the engine.
 */
final class KeySetEngine implements AutoCloseable {
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

  @Override
  public void close() {
    pool.shutdownNow();
    locksmith.close();
  }
}
