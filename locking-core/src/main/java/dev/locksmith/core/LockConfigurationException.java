package dev.locksmith.core;

/**
 * A lock is configured wrongly: a bad duration, key expression, provider name or provider URL. The
 * message names where the mistake is (class, method and attribute, or the part of a URL).
 */
public final class LockConfigurationException extends LockException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message that says what is wrong and where.
   *
   * @param message what is wrong and where
   */
  public LockConfigurationException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and the error that revealed the mistake.
   *
   * @param message what is wrong and where
   * @param cause the error that revealed the mistake
   */
  public LockConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
