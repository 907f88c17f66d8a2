package dev.locksmith.core;

/**
 * A provider could not answer: the server is unreachable, the connection dropped, or the storage
 * failed. Whether the lock was taken is unknown to the caller; a held lease is reported lost when
 * its renewal keeps failing.
 */
public class LockProviderException extends LockException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public LockProviderException(String message) {
    super(message);
  }

  /** Creates an exception with a message and a cause. */
  public LockProviderException(String message, Throwable cause) {
    super(message, cause);
  }
}
