package dev.locksmith.core.fencing;

import dev.locksmith.core.LockException;

/** A write carried a fencing token lower than one the resource has already accepted. */
public final class StaleFencingTokenException extends LockException {
  private static final long serialVersionUID = 1L;

  /** The refused token. */
  private final long token;

  /** The highest token the resource had accepted. */
  private final long highest;

  /**
   * Creates an exception for the refused and the highest accepted token.
   *
   * @param resource the resource written
   * @param token the refused token
   * @param highest the highest token the resource had accepted
   */
  public StaleFencingTokenException(String resource, long token, long highest) {
    super(
        "Write to '"
            + resource
            + "' refused: fencing token "
            + token
            + " is lower than "
            + highest
            + ", already accepted from a later holder");
    this.token = token;
    this.highest = highest;
  }

  /**
   * The refused token.
   *
   * @return the refused token
   */
  public long token() {
    return token;
  }

  /**
   * The highest token the resource had accepted.
   *
   * @return the highest token the resource had accepted
   */
  public long highest() {
    return highest;
  }
}
