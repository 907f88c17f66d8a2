package dev.locksmith.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * COMMAND and everything it starts: a session and process group of its own whose leader is COMMAND
 * (its pid is the group id), stopped as a whole. {@link #stop} freezes the group with SIGSTOP
 * before anything else, so no process of it can fork a new step, then sends SIGTERM and SIGCONT,
 * and SIGKILL to whatever is left after the grace period; it returns once no process of the group
 * is alive. On Linux the group includes the processes of COMMAND's session that moved to groups of
 * their own (GNU {@code timeout}, a shell's job control): they count as alive and are stopped the
 * same way, each group frozen before the stop is reported.
 *
 * <p>If {@code run} dies without stopping the group (SIGKILL), the {@link Signaller} shell, which
 * outlives it, sends SIGKILL to the group.
 *
 * <p>Without a {@link Launcher} that isolates COMMAND, the group is {@code run}'s own and cannot be
 * signalled; the stop sequence then falls back to COMMAND's descendants ({@link ChildProcesses}),
 * which a step started during the stop can escape.
 */
final class ProcessGroup implements AutoCloseable {
  /** How long to wait for the group to go after SIGKILL, which only uninterruptible I/O delays. */
  static final Duration KILL_WAIT = Duration.ofSeconds(5);

  private static final Duration LEADERSHIP_WAIT = Duration.ofSeconds(5);

  /** Rounds of looking for groups the session's processes moved to while others were frozen. */
  private static final int FREEZE_ROUNDS = 100;

  private final Process leader;
  private final boolean isolated;
  private final @Nullable Signaller signaller;
  private boolean stopped;
  // Every process of the group has exited: its pid may be another group's by now, so nothing is
  // sent to it any more. Guarded by this.
  private boolean emptied;

  private ProcessGroup(Process leader, @Nullable Signaller signaller) {
    this.leader = leader;
    this.isolated = signaller != null;
    this.signaller = signaller;
  }

  /**
   * Starts {@code builder}'s command through {@code launcher} and returns once it leads its own
   * process group (the launcher calls setsid before anything else: a millisecond or a few).
   *
   * @throws IOException when the launcher or the command cannot be started
   */
  static ProcessGroup start(ProcessBuilder builder, Launcher launcher) throws IOException {
    if (!launcher.isolates()) {
      return new ProcessGroup(builder.start(), null);
    }
    Signaller signaller = Signaller.start();
    builder.command(launcher.wrap(builder.command()));
    Process leader;
    try {
      leader = builder.start();
    } catch (IOException e) {
      signaller.close();
      throw e;
    }
    if (!leadsItsGroup(leader)) {
      signaller.close(); // cannot happen with setsid or perl; stop it the fallback way then
      return new ProcessGroup(leader, null);
    }
    signaller.guard(leader.pid());
    return new ProcessGroup(leader, signaller);
  }

  /** Waits until {@code leader} leads its own group; true also when it has exited already. */
  private static boolean leadsItsGroup(Process leader) {
    long deadline = System.nanoTime() + LEADERSHIP_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      var group = GroupMembers.groupOf(leader.pid());
      if (group.isEmpty() || group.get() == leader.pid()) {
        return true;
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
    }
    return false;
  }

  /** The process group id, COMMAND's pid; -1 when COMMAND shares {@code run}'s group. */
  long pgid() {
    return isolated ? leader.pid() : -1;
  }

  /** Whether COMMAND has a process group of its own. */
  boolean isolated() {
    return isolated;
  }

  /** Completes when COMMAND itself exits; others in its group may still run. */
  CompletableFuture<Process> leaderExit() {
    return leader.onExit();
  }

  /** Whether COMMAND itself has exited; others in its group may still run. */
  boolean leaderExited() {
    return !leader.isAlive();
  }

  /** COMMAND's exit code; only after {@link #leaderExit()} completed. */
  int exitValue() {
    return leader.exitValue();
  }

  /** Whether any process of the group is alive; exited processes not yet reaped do not count. */
  boolean alive() {
    if (isolated) {
      return GroupMembers.anyAlive(leader.pid());
    }
    return leader.isAlive() || leader.descendants().anyMatch(ProcessHandle::isAlive);
  }

  /**
   * Stops the group: SIGSTOP to all of it, then {@code onFrozen} (which reports the stop, so that
   * no step can start after the report), SIGTERM and SIGCONT, SIGKILL after {@code grace} to
   * whatever is left, and waits until no process of it is alive (at most {@link #KILL_WAIT} after
   * the SIGKILL). COMMAND's descendants that left the group but are still below COMMAND get the
   * same SIGTERM and SIGKILL, without the freeze. A second call waits for the first and does
   * nothing else.
   *
   * @return whether no process of the group is alive afterwards
   */
  synchronized boolean stop(Duration grace, Runnable onFrozen) {
    if (emptied) {
      onFrozen.run();
      return true;
    }
    if (stopped) {
      return !alive();
    }
    stopped = true;
    if (signaller == null) {
      onFrozen.run();
      ChildProcesses.terminate(leader, grace);
      return !alive();
    }
    long pgid = leader.pid();
    signaller.toGroup(pgid, "STOP");
    Set<Long> moved = freezeMovedGroups(signaller, pgid);
    // With the group frozen its membership is fixed; left-group descendants are still listed.
    List<ProcessHandle> outsiders = leader.descendants().toList();
    onFrozen.run();
    outsiders.forEach(ProcessHandle::destroy);
    signaller.toGroup(pgid, "TERM", "CONT");
    moved.forEach(group -> signaller.toGroup(group, "TERM", "CONT"));
    if (awaitGone(grace, outsiders)) {
      return true;
    }
    signaller.toGroup(pgid, "KILL");
    moved.addAll(GroupMembers.otherGroupsOfSession(pgid));
    moved.forEach(group -> signaller.toGroup(group, "KILL"));
    outsiders.forEach(ProcessHandle::destroyForcibly);
    return awaitGone(KILL_WAIT, outsiders);
  }

  /**
   * Freezes the groups that processes of COMMAND's session (led by {@code sid}) moved to, until a
   * look finds none not yet frozen: a process of a group not yet frozen may move to another.
   *
   * @return the groups frozen
   */
  private static Set<Long> freezeMovedGroups(Signaller signaller, long sid) {
    Set<Long> frozen = new LinkedHashSet<>();
    for (int round = 0; round < FREEZE_ROUNDS; round++) {
      Set<Long> found = GroupMembers.otherGroupsOfSession(sid);
      found.removeAll(frozen);
      if (found.isEmpty()) {
        break;
      }
      for (long group : found) {
        signaller.toGroup(group, "STOP");
        frozen.add(group);
      }
    }
    return frozen;
  }

  /** Waits up to {@code timeout} until the group and {@code outsiders} are gone. */
  private boolean awaitGone(Duration timeout, List<ProcessHandle> outsiders) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = TimeUnit.MICROSECONDS.toNanos(500);
    while (true) {
      boolean gone =
          !GroupMembers.anyAlive(leader.pid())
              && outsiders.stream().noneMatch(p -> GroupMembers.alive(p.pid()));
      long left = deadline - System.nanoTime();
      if (gone || left <= 0) {
        return gone;
      }
      LockSupport.parkNanos(Math.min(pause, left));
      pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  /**
   * Waits until no process of the group is alive, polling every {@code interval} at most, or until
   * {@code lost} completes.
   *
   * @return true when the group is gone (it is then never signalled again: its pid may be reused),
   *     false when {@code lost} completed first
   */
  boolean awaitEmpty(CompletableFuture<?> lost, Duration interval) {
    long pause = TimeUnit.MILLISECONDS.toNanos(1);
    while (!gone()) {
      try {
        lost.get(Math.min(pause, interval.toNanos()), TimeUnit.NANOSECONDS);
        return false;
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        pause = Math.min(pause * 2, interval.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (java.util.concurrent.ExecutionException e) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether no process of the group is alive now; once it is gone, the group is never signalled
   * again (its pid may be reused).
   */
  boolean gone() {
    if (alive()) {
      return false;
    }
    emptied();
    return true;
  }

  /** The group is gone: no signal goes to its pid any more, and the SIGKILL guard ends. */
  private synchronized void emptied() {
    if (!stopped) {
      emptied = true;
      close();
    }
  }

  /** Whether the group was found gone before a stop: nothing of it is left to stop. */
  synchronized boolean isEmptied() {
    return emptied;
  }

  /** Ends the signalling shell; the group itself is left as it is. */
  @Override
  public void close() {
    if (signaller != null) {
      signaller.close();
    }
  }
}
