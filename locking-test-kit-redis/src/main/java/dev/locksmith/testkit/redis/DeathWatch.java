package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A small shell beside a child process that kills it (SIGKILL) once this JVM's end of the shell's
 * standard input closes: when this JVM exits in any way, a SIGKILL or {@code Runtime.halt} (a JMH
 * fork halted after a failure) included, where no shutdown hook runs. The JDK closes every other
 * descriptor in the children it starts, so no later child keeps that pipe open. This object holds
 * the shell's {@link Process}, and so the pipe, for as long as it watches.
 */
final class DeathWatch {
  private final Process shell;

  private DeathWatch(Process shell) {
    this.shell = shell;
  }

  /** Starts the shell that watches over {@code watched}. */
  static DeathWatch over(Process watched) {
    try {
      Process shell =
          new ProcessBuilder("sh", "-c", "read -r _; kill -KILL " + watched.pid() + " 2>/dev/null")
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      return new DeathWatch(shell);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the shell that watches pid " + watched.pid(), e);
    }
  }

  /**
   * Stops watching, without a signal to the watched process: the shell is killed while this JVM
   * still holds the pipe, so it never reads the end of its input.
   */
  void stop() {
    shell.destroyForcibly();
  }
}
