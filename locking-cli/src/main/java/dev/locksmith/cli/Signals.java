package dev.locksmith.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Signals whole process groups with the {@code kill} program ({@code kill -STOP -- -PGID}). */
final class Signals {
  private static final String KILL =
      Executables.onPath("kill", "/bin/kill", "/usr/bin/kill").map(Path::toString).orElse("kill");

  private Signals() {}

  /** The {@code kill} program used, as a path where one was found. */
  static String program() {
    return KILL;
  }

  /**
   * Sends {@code signal} ({@code STOP}, {@code TERM}, {@code CONT}, {@code KILL}, or {@code 0} to
   * test) to every process of group {@code pgid}.
   *
   * @return whether at least one process of the group was signalled
   */
  static boolean toGroup(String signal, long pgid) {
    try {
      Process kill =
          new ProcessBuilder(KILL, "-" + signal, "--", "-" + pgid)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!waitUninterruptibly(kill)) {
        kill.destroyForcibly();
        return false;
      }
      return kill.exitValue() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** Waits up to 5 s for {@code kill}; an interrupt must not cut a stop sequence short. */
  private static boolean waitUninterruptibly(Process kill) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (true) {
        try {
          return kill.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
