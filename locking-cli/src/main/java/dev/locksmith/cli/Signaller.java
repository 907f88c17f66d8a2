package dev.locksmith.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Sends signals to a process group through a shell started beforehand, so that the freeze on a lost
 * lease does not wait for the JVM to start a program (10-20 ms, more under load) and still works
 * when COMMAND has used up the processes the user may start: {@code bash}'s built-in {@code kill}
 * forks nothing. Where there is no bash, {@code sh} runs the {@code kill} program. The shell
 * ignores SIGINT, SIGTERM and SIGHUP (a Ctrl-C reaches it too, and the stop must go on), and exits
 * when {@code run} closes its stdin or dies. If it is gone, each signal is sent by starting {@code
 * kill} ({@link Signals}).
 */
final class Signaller implements AutoCloseable {
  private static final String LOOP =
      "trap '' INT TERM HUP; while read -r pgid signals; do rc=1;"
          + " for s in $signals; do %s -s \"$s\" -- \"-$pgid\" 2>/dev/null && rc=0; done;"
          + " echo $rc; done";

  private final @Nullable Process shell;
  private final @Nullable Writer requests;
  private final @Nullable BufferedReader replies;

  private Signaller(@Nullable Process shell) {
    this.shell = shell;
    this.requests =
        shell == null
            ? null
            : new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.US_ASCII);
    this.replies =
        shell == null
            ? null
            : new BufferedReader(
                new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII));
  }

  /** Starts the signalling shell; without one, signals are sent by starting {@code kill}. */
  static Signaller start() {
    Optional<Path> bash = Executables.onPath("bash", "/bin/bash", "/usr/bin/bash");
    List<String> command =
        bash.isPresent()
            ? List.of(bash.get().toString(), "-c", LOOP.formatted("kill"))
            : List.of("sh", "-c", LOOP.formatted("'" + Signals.program() + "'"));
    try {
      return new Signaller(
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start());
    } catch (IOException e) {
      return new Signaller(null);
    }
  }

  /**
   * Sends each of {@code signals} in turn to every process of group {@code pgid}.
   *
   * @return whether any process got any of them
   */
  synchronized boolean toGroup(long pgid, String... signals) {
    if (shell != null && requests != null && replies != null && shell.isAlive()) {
      try {
        requests.write(pgid + " " + String.join(" ", signals) + "\n");
        requests.flush();
        String reply = replies.readLine();
        if (reply != null) {
          return reply.strip().equals("0");
        }
      } catch (IOException e) {
        // The shell is gone: start kill for each signal instead.
      }
    }
    boolean any = false;
    for (String signal : signals) {
      any |= Signals.toGroup(signal, pgid);
    }
    return any;
  }

  /** Ends the shell: it exits when its stdin closes. */
  @Override
  public synchronized void close() {
    if (shell == null || requests == null) {
      return;
    }
    try {
      requests.close();
    } catch (IOException e) {
      // Already gone.
    }
    shell.destroy();
  }
}
