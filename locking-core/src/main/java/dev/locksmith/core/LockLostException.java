package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;

/**
 * The lease is no longer held: it expired, its renewal failed, or another owner took the lock over.
 * Work done after this point is not protected by the lock.
 */
public final class LockLostException extends LockException {
  private static final long serialVersionUID = 1L;

  /** The id of the lost lock. */
  private final String lockId;

  /**
   * Creates an exception for the given lock id and the reason the lease was lost.
   *
   * @param lockId the lost lock's id
   * @param reason why the lease was lost
   */
  public LockLostException(String lockId, String reason) {
    super("Lease on lock " + LockIdText.quoted(lockId) + " was lost: " + reason);
    this.lockId = lockId;
  }

  /**
   * The id of the lost lock.
   *
   * @return the id of the lost lock
   */
  public String lockId() {
    return lockId;
  }
}
