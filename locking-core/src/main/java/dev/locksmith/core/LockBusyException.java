package dev.locksmith.core;

/** The lock is held by another owner and the busy policy is {@code FAIL}. */
public final class LockBusyException extends LockException {
  private static final long serialVersionUID = 1L;
  private final String lockId;

  /** Creates an exception for the given lock id. */
  public LockBusyException(String lockId) {
    super("Lock '" + lockId + "' is held by another owner");
    this.lockId = lockId;
  }

  /** The id of the busy lock. */
  public String lockId() {
    return lockId;
  }
}
