package dev.locksmith.annotation;

/** What a locked method does when another owner holds its lock. */
public enum OnBusy {
  /**
   * The default: {@link #SKIP} for a method that a scheduler calls on every instance (annotated
   * with Spring's or Micronaut's {@code @Scheduled}, once or repeated, Jakarta's or javax's
   * {@code @Schedule}, JobRunr's {@code @Recurring}, each also through an annotation of the
   * application's own that carries it; or Quartz's {@code Job.execute}), so that each tick runs
   * once across instances; {@link #WAIT} for every other method.
   */
  AUTO,
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
