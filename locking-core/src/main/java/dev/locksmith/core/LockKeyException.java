package dev.locksmith.core;

/**
 * A lock key could not be computed for a call: the expression failed, or it evaluated to {@code
 * null} or an empty string. A missing key never falls back to a lock shared by every call.
 */
public final class LockKeyException extends LockException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message naming the method and the expression.
   *
   * @param message names the method and the expression
   */
  public LockKeyException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and the evaluation error.
   *
   * @param message names the method and the expression
   * @param cause the evaluation error
   */
  public LockKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
