package dev.locksmith.cli;

/** The command's documented exit codes, after sysexits(3) where one fits. */
final class ExitCodes {
  /** The lock was busy under {@code --skip}: nothing ran, which is not an error. */
  static final int SKIPPED = 0;

  /** Bad usage: an unknown option, a bad duration or URL (EX_USAGE). */
  static final int USAGE = 64;

  /** The provider could not be reached (EX_UNAVAILABLE). */
  static final int UNAVAILABLE = 69;

  /** The lease was lost while the command ran; the command was terminated. */
  static final int LEASE_LOST = 70;

  /** An internal error (EX_SOFTWARE); the message says what. */
  static final int SOFTWARE = 70;

  /** The lock was busy under {@code --fail}, or the wait ran out (EX_TEMPFAIL). */
  static final int BUSY = 75;

  /** The command could not be started (126, as a shell reports it). */
  static final int CANNOT_EXECUTE = 126;

  private ExitCodes() {}
}
