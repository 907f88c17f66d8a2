package dev.locksmith.core;

/** The base of every exception Locksmith throws. */
public class LockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message the message
   */
  public LockException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message the message
   * @param cause the cause
   */
  public LockException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Creates an exception with a message and no stack trace, for failures whose place in the code
   * says nothing (a call refused at once because its provider is known to be down), so that a
   * framework that logs every failure of a scheduled job logs one line, not a trace per tick.
   *
   * @param message the message
   * @param writableStackTrace whether the stack trace is filled in
   */
  protected LockException(String message, boolean writableStackTrace) {
    super(message, null, false, writableStackTrace);
  }
}
