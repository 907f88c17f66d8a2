package dev.locksmith.core;

/**
 * A provider reached its store but could not read or write the record of one lock (a lock file this
 * process may not write, say), while its other locks work: a fault of that lock, not an outage of
 * the provider. The engine does not open the provider's outage circuit for it, so calls on other
 * locks go on; a held lease whose renewals keep failing this way is lost at its deadline, and a
 * WAIT retries with back-off as through an outage. Whether the failed call took effect is unknown,
 * as for any {@link LockProviderException}.
 */
public class LockRecordException extends LockProviderException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message the message, naming the lock and its record
   * @param cause the cause
   */
  public LockRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
