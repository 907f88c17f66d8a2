package dev.locksmith.samples.micronaut;

import dev.locksmith.annotation.DistributedLock;
import jakarta.inject.Singleton;
import java.util.function.Supplier;

/**
 * The per-account locks: one lock id {@code account:<name>} per account, across all instances, both
 * accounts of a transfer under one annotation.
 */
@Singleton
class AccountLocks {

  /**
   * Runs {@code work} while this instance holds the locks of both accounts (the SpEL list {@code
   * {#from, #to}} locks each element); waits up to 10 s in all while another caller (here or in
   * another instance) holds either, then fails with {@code LockTimeoutException}. The engine takes
   * the two locks in one global order (sorted), all or nothing, so two opposite transfers queue up
   * instead of deadlocking. The leases are renewed while the work runs.
   */
  @DistributedLock(name = "account", key = "{#from, #to}", ttl = "10s", waitTimeout = "10s")
  <T> T holding(String from, String to, Supplier<T> work) {
    return work.get();
  }
}
