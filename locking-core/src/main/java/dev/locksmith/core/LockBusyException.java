package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;
import java.util.List;

/** The lock is held by another owner and the busy policy is {@code FAIL}. */
public final class LockBusyException extends LockException {
  private static final long serialVersionUID = 1L;

  /** The id of the busy lock, the first of a set. */
  private final String lockId;

  /** Every lock of the set asked for, or the one lock. */
  private final List<String> lockIds;

  /**
   * Creates an exception for the given lock id.
   *
   * @param lockId the busy lock's id
   */
  public LockBusyException(String lockId) {
    super("Lock " + LockIdText.quoted(lockId) + " is held by another owner");
    this.lockId = lockId;
    this.lockIds = List.of(lockId);
  }

  /**
   * Creates an exception for a set of locks asked for at once, of which at least one is held by
   * another owner and none was taken. The store answers for the whole set, so which lock was busy
   * is not known.
   *
   * @param lockIds the locks asked for, in lock order; at least one
   */
  public LockBusyException(List<String> lockIds) {
    super(
        "One of the locks "
            + LockIdText.quoted(lockIds)
            + " is held by another owner; they were asked for at once, all or nothing, and none"
            + " was taken");
    if (lockIds.isEmpty()) {
      throw new IllegalArgumentException("no lock ids given");
    }
    this.lockIds = List.copyOf(lockIds);
    this.lockId = this.lockIds.get(0);
  }

  /**
   * The id of the busy lock; for a set of locks asked for at once, the first of them ({@link
   * #lockIds()} lists them all).
   *
   * @return the id of the busy lock; for a set of locks asked for at once, the first of them
   *     ({@link #lockIds()} lists them all)
   */
  public String lockId() {
    return lockId;
  }

  /**
   * The busy lock's id, or for a set of locks asked for at once, every lock of the set, one of
   * which was busy.
   *
   * @return the busy lock's id, or for a set of locks asked for at once, every lock of the set, one
   *     of which was busy
   */
  public List<String> lockIds() {
    return lockIds;
  }
}
