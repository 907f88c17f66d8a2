package dev.locksmith.cli;

import dev.locksmith.core.Durations;
import dev.locksmith.core.Lease;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * COMMAND of {@code locksmith run}, run while its lease is held: started in a process group of its
 * own with the lease in its environment, supervised until that group has exited or the lease is
 * lost (the group is then stopped), and with {@code --until} the lease kept until that test
 * succeeds.
 */
final class LeasedCommand {
  /** How often, at most, the group is checked after COMMAND itself has exited. */
  private static final Duration GROUP_POLL = Duration.ofMillis(100);

  private final List<String> command;
  // How messages name the locks: 'KEY', or every lock id.
  private final String locksNamed;
  private final Duration grace;
  private final @Nullable String until;
  private final Duration untilInterval;
  private final int lostExitCode;
  private final PrintWriter err;

  LeasedCommand(
      List<String> command,
      String locksNamed,
      Duration grace,
      @Nullable String until,
      Duration untilInterval,
      int lostExitCode,
      PrintWriter err) {
    this.command = command;
    this.locksNamed = locksNamed;
    this.grace = grace;
    this.until = until;
    this.untilInterval = untilInterval;
    this.lostExitCode = lostExitCode;
    this.err = err;
  }

  /** The shell that runs {@code --until}: {@code sh} on PATH, or {@code /bin/sh}. */
  static Optional<Path> untilShell() {
    return Executables.onPath("sh", "/bin/sh");
  }

  /** Prints one line on stderr at once: {@code locksmith: MESSAGE}. */
  static void report(PrintWriter err, String message) {
    err.println("locksmith: " + message);
    err.flush();
  }

  /**
   * Runs COMMAND holding {@code lease} and returns run's exit code: COMMAND's own, or the lost exit
   * code when the lease was lost before COMMAND started, while it ran, or while {@code --until} was
   * awaited.
   */
  int run(Lease lease, SignalStop onSignal, CompletableFuture<String> lost, Launcher launcher) {
    // The engine hands out only a lease with at least half its ttl left (a late grant is renewed
    // or refused there); this only checks the lease was not lost since.
    if (!lease.isValid() || lost.isDone()) {
      err.println(
          "locksmith: lease on "
              + locksNamed
              + " lost before COMMAND started ("
              + Errors.clean(lost.getNow("no longer valid"))
              + "); COMMAND was not started");
      return lostExitCode;
    }
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    Map<String, String> env = builder.environment();
    RunKeys.export(lease, env);
    ProcessGroup group = onSignal.start(() -> startGroup(builder, launcher));
    return supervise(lease, group, onSignal, lost);
  }

  private ProcessGroup startGroup(ProcessBuilder builder, Launcher launcher) {
    try {
      return ProcessGroup.start(builder, launcher);
    } catch (IOException e) {
      throw Failure.cannotExecute(
          "cannot run COMMAND '" + command.get(0) + "': " + Errors.clean(e), e);
    }
  }

  /** Waits for COMMAND's group to exit or the lease to be lost, whichever comes first. */
  private int supervise(
      Lease lease, ProcessGroup group, SignalStop onSignal, CompletableFuture<String> lost) {
    CompletableFuture.anyOf(group.leaderExit(), lost).join();
    // COMMAND's background jobs are still in its group: the lease covers them until they exit.
    if (!lost.isDone() && group.awaitEmpty(lost, GROUP_POLL)) {
      int exit = group.exitValue();
      if (!lease.isValid() && !onSignal.isStopping()) {
        // Its deadline passed while COMMAND ran (run was stopped, or paused), and COMMAND ended
        // before the engine's next look reported the loss: the run counts as lost all the same.
        report(
            err,
            lostLine("its deadline passed")
                + " as COMMAND's group ended; COMMAND exited with "
                + exit
                + ", and may have outlived the lease");
        return lostExitCode;
      }
      if (until != null && !holdUntil(lease, onSignal, lost)) {
        return lostExitCode;
      }
      return exit;
    }
    String reason = Errors.clean(lost.join());
    if (group.leaderExited() && group.gone()) {
      // Its last process exited about when the lease was lost, between two looks at the group:
      // it may have outlived the lease, so the run counts as lost, but there is nothing to stop.
      // (While COMMAND itself runs the group is alive: the freeze then waits for no look.)
      report(
          err,
          lostLine(reason)
              + " as COMMAND's group ended; COMMAND exited with "
              + group.leaderExit().join().exitValue()
              + ", and its last process may have outlived the lease");
      return lostExitCode;
    }
    boolean gone =
        group.stop(
            grace,
            () ->
                report(
                    err,
                    lostLine(reason)
                        + "; stopping COMMAND: SIGTERM, and SIGKILL after --grace "
                        + Durations.format(grace)));
    if (!gone) {
      report(
          err,
          "processes of COMMAND's group "
              + group.pgid()
              + " are still alive "
              + Durations.format(ProcessGroup.KILL_WAIT)
              + " after SIGKILL (stuck in uninterruptible I/O?)");
    }
    return lostExitCode;
  }

  private String lostLine(String reason) {
    return "lease on " + locksNamed + " lost (" + reason + ")";
  }

  /**
   * Keeps the lease until {@code --until} succeeds; false if the lease is lost first, even while a
   * test runs (that test is then killed). The test's output goes to stderr and its input is empty:
   * the script's stdout carries COMMAND's output only. Its environment has the lease's variables,
   * as COMMAND's has.
   */
  private boolean holdUntil(Lease lease, SignalStop onSignal, CompletableFuture<String> lost) {
    while (true) {
      Process test;
      try {
        String shell = untilShell().map(Path::toString).orElse("sh");
        ProcessBuilder builder =
            new ProcessBuilder(shell, "-c", "exec </dev/null >&2\n" + until).inheritIO();
        RunKeys.export(lease, builder.environment()); // as COMMAND's: the test checks its work
        test = builder.start();
      } catch (IOException e) {
        // The work it was to wait for may still run: not a success.
        report(
            err,
            "cannot run the --until test: "
                + Errors.clean(e)
                + "; releasing the lock, and exiting as for a lost lease");
        return false;
      }
      if (!onSignal.untilTest(test)) {
        test.destroyForcibly(); // a signal is stopping the run: its hook reports and releases
        return true;
      }
      try {
        CompletableFuture.anyOf(test.onExit(), lost).join();
      } finally {
        onSignal.untilTest(null);
      }
      if (lost.isDone()) {
        test.descendants().forEach(ProcessHandle::destroyForcibly);
        test.destroyForcibly();
        reportLostWhileWaiting(lost);
        return false;
      }
      if (test.exitValue() == 0) {
        return true;
      }
      try {
        lost.get(untilInterval.toNanos(), TimeUnit.NANOSECONDS);
        reportLostWhileWaiting(lost);
        return false;
      } catch (TimeoutException stillHeld) {
        // Check the test again.
      } catch (InterruptedException | ExecutionException e) {
        Thread.currentThread().interrupt();
        return true;
      }
    }
  }

  private void reportLostWhileWaiting(CompletableFuture<String> lost) {
    report(
        err,
        "lease on "
            + locksNamed
            + " lost while waiting for --until ("
            + Errors.clean(lost.join())
            + ")");
  }
}
