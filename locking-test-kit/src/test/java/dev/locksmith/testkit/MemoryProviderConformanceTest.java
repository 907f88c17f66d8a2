package dev.locksmith.testkit;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockProvider;

/** The in-memory provider passes the single-JVM conformance suite. */
class MemoryProviderConformanceTest extends LockProviderContract {
  private final String store = "conformance-" + System.nanoTime();

  @Override
  protected LockProvider newProvider() {
    return MemoryLockProvider.shared(store);
  }
}
