package dev.locksmith.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to a process with the {@code kill} command. */
final class Signals {
  private Signals() {}

  /**
   * Sends {@code SIG<name>} to process {@code pid}.
   *
   * @param description the process as error messages name it
   * @throws IllegalStateException when {@code kill} fails or is interrupted
   * @throws UncheckedIOException when {@code kill} cannot be run
   */
  static void send(String name, long pid, String description) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(pid))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        kill.destroyForcibly();
        throw new IllegalStateException(
            "kill -"
                + name
                + " of "
                + description
                + " failed: "
                + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + name + " for " + description, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while sending SIG" + name + " to " + description, e);
    }
  }
}
