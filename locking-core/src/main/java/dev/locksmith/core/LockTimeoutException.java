package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Waiting for a lock ran out before the lock was granted. */
public final class LockTimeoutException extends LockException {
  private static final long serialVersionUID = 1L;

  /** The id of the lock that was not granted. */
  private final String lockId;

  /** How long the caller waited. */
  private final Duration waited;

  /** What the provider's last call failed with, when the wait ran out during an outage. */
  private final @Nullable String outage;

  /**
   * Creates an exception for the given lock id and the time spent waiting.
   *
   * @param lockId the id of the lock that was not granted
   * @param waited how long the caller waited
   */
  public LockTimeoutException(String lockId, Duration waited) {
    super(
        "Timed out after "
            + waited.toMillis()
            + " ms waiting for lock "
            + LockIdText.quoted(lockId));
    this.lockId = lockId;
    this.waited = waited;
    this.outage = null;
  }

  /**
   * Creates an exception for a wait that ran out while the lock's provider did not answer.
   *
   * @param lockId the id of the lock that was not granted
   * @param waited how long the caller waited
   * @param outage what the provider's last call failed with, one line, naming the provider
   * @param cause the provider failure (or the fast failure of its open circuit) that ended the last
   *     attempt
   */
  public LockTimeoutException(String lockId, Duration waited, String outage, Throwable cause) {
    super(
        "Timed out after "
            + waited.toMillis()
            + " ms waiting for lock "
            + LockIdText.quoted(lockId)
            + ": "
            + outage
            + "; a WAIT waits through an outage until its timeout",
        cause);
    this.lockId = lockId;
    this.waited = waited;
    this.outage = outage;
  }

  /**
   * The id of the lock that was not granted.
   *
   * @return the id of the lock that was not granted
   */
  public String lockId() {
    return lockId;
  }

  /**
   * How long the caller waited.
   *
   * @return how long the caller waited
   */
  public Duration waited() {
    return waited;
  }

  /**
   * What the provider's last call failed with, one line naming the provider, when the wait ran out
   * while the provider did not answer: the lock may well be free, and no holder kept it.
   *
   * @return the outage, or empty when the lock was busy
   */
  public Optional<String> outage() {
    return Optional.ofNullable(outage);
  }
}
