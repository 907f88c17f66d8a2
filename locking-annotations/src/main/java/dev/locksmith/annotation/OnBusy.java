package dev.locksmith.annotation;

/** What a locked method does when another owner holds its lock. */
public enum OnBusy {
  /**
   * Do not run the method. It returns {@code null}, {@code Optional.empty()} or an already
   * completed stage, as its return type needs.
   */
  SKIP,
  /** Wait up to {@link DistributedLock#waitTimeout()} for the lock, then fail with a timeout. */
  WAIT,
  /** Fail at once with a busy exception. */
  FAIL
}
