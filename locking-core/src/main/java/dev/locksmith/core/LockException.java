package dev.locksmith.core;

/** The base of every exception Locksmith throws. */
public class LockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message. */
  public LockException(String message) {
    super(message);
  }

  /** Creates an exception with a message and a cause. */
  public LockException(String message, Throwable cause) {
    super(message, cause);
  }
}
