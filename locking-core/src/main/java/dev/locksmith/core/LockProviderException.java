package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;

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
   * A provider call on one lock that failed, in the words every provider uses: {@code PROVIDER:
   * ACTION of lock 'ID' failed: WHY}, the id shortened as {@link
   * dev.locksmith.core.spi.LockIdText#quoted(String)} does.
   *
   * @param provider the provider, as its messages start (its store and description)
   * @param action what was done, such as {@code acquire} or {@code release}
   * @param lockId the lock's id
   * @param why the failure, in one line
   * @param cause the cause
   * @return the exception
   */
  public static LockProviderException callFailed(
      String provider, String action, String lockId, String why, Throwable cause) {
    return new LockProviderException(
        provider + ": " + action + " of lock " + LockIdText.quoted(lockId) + " failed: " + why,
        cause);
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
