package dev.locksmith.cli;

import dev.locksmith.core.LockException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;

/** Describes who holds a lock, for messages. */
final class Holders {
  private Holders() {}

  /**
   * {@code "held by OWNER (fencing token N, X ms left)"}, or {@code "held by another owner"} when
   * the provider cannot tell (or no longer shows a holder).
   */
  static String describe(LockProvider provider, String lockId) {
    try {
      LockStatus status = provider.status(lockId);
      return status
          .currentHolder()
          .map(
              h ->
                  "held by "
                      + h.owner()
                      + " (fencing token "
                      + h.fencingToken()
                      + ", "
                      + h.timeLeft().toMillis()
                      + " ms left)")
          .orElse("held by another owner");
    } catch (LockException e) {
      return "held by another owner";
    }
  }
}
