package dev.locksmith.cli;

import dev.locksmith.core.LockException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;

/** Describes who holds a lock, for messages. */
final class Holders {
  /** How a description starts when the provider could not say who holds the lock. */
  static final String UNKNOWN = "held by an unknown owner";

  private Holders() {}

  /**
   * {@code "held by OWNER (fencing token N, X ms left)"}; when the provider cannot tell, {@code
   * "held by an unknown owner"} and why: the lock was free again when asked, or the status read
   * failed (its reason, on one line).
   */
  static String describe(LockProvider provider, String lockId) {
    try {
      LockStatus status = provider.status(lockId);
      return status
          .currentHolder()
          .map(
              h ->
                  "held by "
                      + (h.owner().isBlank() ? "an owner without a name" : h.owner())
                      + " (fencing token "
                      + h.fencingToken()
                      + ", "
                      + h.timeLeft().toMillis()
                      + " ms left)")
          .orElse(UNKNOWN + " (the lock was free again when asked)");
    } catch (LockException e) {
      return UNKNOWN + " (could not read who: " + Errors.clean(e) + ")";
    }
  }

  /** Whether {@code description}, from {@link #describe}, names the holder. */
  static boolean named(String description) {
    return !description.startsWith(UNKNOWN);
  }
}
