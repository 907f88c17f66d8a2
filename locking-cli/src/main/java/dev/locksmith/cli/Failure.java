package dev.locksmith.cli;

import org.jspecify.annotations.Nullable;

/**
 * A failure a command reports as one {@code locksmith:} line and a documented exit code. The
 * message says what was wrong and what to do; {@code --verbose} adds the cause's stack trace.
 */
final class Failure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;
  private final boolean reported;

  private Failure(int exitCode, String message, @Nullable Throwable cause) {
    this(exitCode, message, cause, false);
  }

  private Failure(int exitCode, String message, @Nullable Throwable cause, boolean reported) {
    super(message, cause);
    this.exitCode = exitCode;
    this.reported = reported;
  }

  /**
   * The command was stopped by a signal, whose shutdown hook has printed the line already: nothing
   * more is printed (the JVM exits with the signal's code, not this one).
   */
  static Failure stoppedBySignal(String message) {
    return new Failure(ExitCodes.SOFTWARE, message, null, true);
  }

  /** A usage error: a bad option, duration, file or URL (64). */
  static Failure usage(String message) {
    return new Failure(ExitCodes.USAGE, message, null);
  }

  /** A usage error found by a library call (64). */
  static Failure usage(String message, Throwable cause) {
    return new Failure(ExitCodes.USAGE, message, cause);
  }

  /** The provider could not be reached or answered too slowly (69). */
  static Failure unavailable(String message, @Nullable Throwable cause) {
    return new Failure(ExitCodes.UNAVAILABLE, message, cause);
  }

  /**
   * The lock was busy under {@code --fail}, or {@code --wait} ran out: 75, or the code {@code
   * --busy-exit-code} chose.
   */
  static Failure busy(int exitCode, String message, Throwable cause) {
    return new Failure(exitCode, message, cause);
  }

  /** COMMAND could not be started (126). */
  static Failure cannotExecute(String message, @Nullable Throwable cause) {
    return new Failure(ExitCodes.CANNOT_EXECUTE, message, cause);
  }

  /** Whether the line was printed already, so that none is printed for this failure. */
  boolean reported() {
    return reported;
  }

  /** The exit code the command ends with. */
  int exitCode() {
    return exitCode;
  }
}
