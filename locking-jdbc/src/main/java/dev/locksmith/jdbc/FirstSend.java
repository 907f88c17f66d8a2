package dev.locksmith.jdbc;

/**
 * When the first run of one call sent its statement. A run the client gave up on may still have
 * reached the database and commit after the retry, so a lease's deadline counts from the first
 * send, not from the retry's; a retried release asks whether the lease was held then.
 */
final class FirstSend {
  private boolean sent;
  private long nanos;

  /** Notes a send now, unless an earlier run of the call sent first, and returns the first one. */
  long mark() {
    if (!sent) {
      sent = true;
      nanos = System.nanoTime();
    }
    return nanos;
  }

  /**
   * Whether the first run sent its statement before {@code deadlineNanos} ({@link
   * System#nanoTime}).
   */
  boolean before(long deadlineNanos) {
    return sent && nanos - deadlineNanos < 0;
  }

  /** How long ago, in microseconds, the first run sent its statement; 0 when none did. */
  long microsAgo() {
    return sent ? (System.nanoTime() - nanos) / 1_000 : 0;
  }
}
