package dev.locksmith.testkit;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockProvider;

/** The in-memory provider passes the single-JVM conformance suite. */
class MemoryProviderConformanceTest extends LockProviderContract implements FullContract {
  private final String store = "conformance-" + System.nanoTime();

  @Override
  protected LockProvider newProvider() {
    return MemoryLockProvider.shared(store);
  }

  /** A memory store has no persistence: each of these discards it, as a restarted JVM would. */
  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() {
        MemoryLockProvider.discardShared(store);
      }

      @Override
      public void restartLosingState() {
        MemoryLockProvider.discardShared(store);
      }

      @Override
      public void restartWithPersistenceAdded() {
        MemoryLockProvider.discardShared(store);
      }
    };
  }
}
