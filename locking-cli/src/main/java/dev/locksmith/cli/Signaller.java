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
 *
 * <p>It also guards the group ({@link #guard}): when its stdin ends without {@link #close} having
 * said so first, {@code run} died without stopping COMMAND (SIGKILL, the OOM killer), and its lease
 * renewals with it, so the shell sends SIGKILL to the group before it exits, and, where there is
 * {@code pkill}, to the processes of COMMAND's session that moved to groups of their own (GNU
 * {@code timeout}, job control): nothing COMMAND started outlives {@code run} by more than the
 * shell's read, except what left the session on purpose ({@code setsid}).
 */
final class Signaller implements AutoCloseable {
  private static final String LOOP =
      "trap '' INT TERM HUP; guard=; while read -r pgid signals; do"
          + " case $pgid in guard) guard=$signals; continue;; end) guard=; break;; esac; rc=1;"
          + " for s in $signals; do %1$s -s \"$s\" -- \"-$pgid\" 2>/dev/null && rc=0; done;"
          + " echo $rc; done;"
          + " if [ -n \"$guard\" ]; then %1$s -s KILL -- \"-$guard\" 2>/dev/null;%2$s fi";

  /**
   * What the guard does after the SIGKILL to the group, where {@code pkill} is found ({@code %s}):
   * freezes, twice so that a process forked during the first look is caught too, then kills every
   * process left in COMMAND's session, which COMMAND leads: those in groups of their own.
   */
  private static final String SESSION_KILL =
      " for s in STOP STOP KILL; do %s -\"$s\" -s \"$guard\" 2>/dev/null; done;";

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
    String session =
        Executables.onPath("pkill", "/usr/bin/pkill", "/bin/pkill")
            .map(pkill -> SESSION_KILL.formatted("'" + pkill + "'"))
            .orElse("");
    List<String> command =
        bash.isPresent()
            ? List.of(bash.get().toString(), "-c", LOOP.formatted("kill", session))
            : List.of("sh", "-c", LOOP.formatted("'" + Signals.program() + "'", session));
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

  /**
   * Has the shell send SIGKILL to group {@code pgid} if {@code run} dies before {@link #close}.
   *
   * @return whether the shell took the request (it is alive)
   */
  synchronized boolean guard(long pgid) {
    return tell("guard " + pgid);
  }

  /** Ends the shell, telling it first that the guarded group needs nothing more. */
  @Override
  public synchronized void close() {
    if (shell == null || requests == null) {
      return;
    }
    tell("end");
    try {
      requests.close();
    } catch (IOException e) {
      // Already gone.
    }
    shell.destroy();
  }

  private boolean tell(String line) {
    if (shell == null || requests == null || !shell.isAlive()) {
      return false;
    }
    try {
      requests.write(line + "\n");
      requests.flush();
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
