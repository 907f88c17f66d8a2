package dev.locksmith.samples.micronaut;

import dev.locksmith.annotation.DistributedLock;
import jakarta.inject.Singleton;
import java.util.function.Supplier;

/** The per-account lock: one lock id {@code account:<name>} per account, across all instances. */
@Singleton
class AccountLocks {

  /**
   * Runs {@code work} while this instance holds the account's lock; waits up to 10 s while another
   * caller (here or in another instance) holds it, then fails with {@code LockTimeoutException}.
   * The lease is renewed while the work runs.
   */
  @DistributedLock(name = "account", key = "#account", ttl = "10s", waitTimeout = "10s")
  <T> T holding(String account, Supplier<T> work) {
    return work.get();
  }
}
