package dev.locksmith.core;

/**
 * A provider could not answer: the server is unreachable, the connection dropped, or the storage
 * failed. Whether the lock was taken is unknown to the caller; a held lease is reported lost when
 * its renewal keeps failing. While the engine knows a provider to be down (its outage circuit is
 * open, see {@link Locksmith#health()}), locked calls fail with this exception at once, without
 * calling the provider, and its message names the provider, since when it is down and why.
 */
public class LockProviderException extends LockException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message the message
   */
  public LockProviderException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message the message
   * @param cause the cause
   */
  public LockProviderException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Creates an exception with a message and no stack trace; see {@link LockException}.
   *
   * @param message the message
   * @param writableStackTrace whether the stack trace is filled in
   */
  protected LockProviderException(String message, boolean writableStackTrace) {
    super(message, writableStackTrace);
  }
}
