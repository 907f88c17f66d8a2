package dev.locksmith.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Which processes are alive and in which process group. On Linux it reads {@code /proc}, where an
 * exited process that its parent has not reaped yet (a zombie, which {@code kill -0} and {@link
 * ProcessHandle#isAlive()} still count) is not alive; elsewhere it asks {@code kill -0} and {@code
 * ps}.
 */
final class GroupMembers {
  private static final Path PROC = Path.of("/proc");
  private static final boolean HAS_PROC = Files.isReadable(PROC.resolve("self/stat"));

  private GroupMembers() {}

  /** The process group of a live process; empty when it is gone or has exited. */
  static Optional<Long> groupOf(long pid) {
    if (HAS_PROC) {
      Stat stat = stat(PROC.resolve(Long.toString(pid)));
      return stat == null || stat.exited() ? Optional.empty() : Optional.of(stat.group());
    }
    return psGroupOf(pid);
  }

  /** Whether a process is alive (not exited). */
  static boolean alive(long pid) {
    if (HAS_PROC) {
      Stat stat = stat(PROC.resolve(Long.toString(pid)));
      return stat != null && !stat.exited();
    }
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * Whether any process of group {@code pgid} is alive (not exited), or, on Linux, of the session
   * its leader started: a process may move to a group of its own within the session (GNU {@code
   * timeout}, a shell's job control) and still be COMMAND's work.
   */
  static boolean anyAlive(long pgid) {
    if (!HAS_PROC) {
      return Signals.toGroup("0", pgid);
    }
    Stat leader = stat(PROC.resolve(Long.toString(pgid)));
    if (leader != null && leader.group() == pgid && !leader.exited()) {
      return true;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, GroupMembers::isPid)) {
      for (Path entry : entries) {
        Stat stat = stat(entry);
        if (stat != null && stat.of(pgid) && !stat.exited()) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return Signals.toGroup("0", pgid);
    }
  }

  /**
   * The groups other than {@code sid} that live processes of session {@code sid} are in; read on
   * Linux only (empty elsewhere, and when {@code /proc} cannot be listed).
   */
  static Set<Long> otherGroupsOfSession(long sid) {
    Set<Long> groups = new LinkedHashSet<>();
    if (!HAS_PROC) {
      return groups;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, GroupMembers::isPid)) {
      for (Path entry : entries) {
        Stat stat = stat(entry);
        if (stat != null && stat.session() == sid && stat.group() != sid && !stat.exited()) {
          groups.add(stat.group());
        }
      }
    } catch (IOException e) {
      // as if none: the group itself is still stopped
    }
    return groups;
  }

  private static boolean isPid(Path entry) {
    String name = entry.getFileName().toString();
    for (int i = 0; i < name.length(); i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return false;
      }
    }
    return !name.isEmpty();
  }

  /** {@code /proc/PID/stat}: state, process group and session; null when the process is gone. */
  private static @Nullable Stat stat(Path dir) {
    String text;
    try {
      // Bytes, not UTF-8: the name is cut at 15 bytes, perhaps inside a character, and only the
      // numbers after it are read.
      text = new String(Files.readAllBytes(dir.resolve("stat")), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return null;
    }
    // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
    int close = text.lastIndexOf(')');
    if (close < 0 || close + 2 >= text.length()) {
      return null;
    }
    String[] fields = text.substring(close + 2).split(" ", 5);
    if (fields.length < 4) {
      return null;
    }
    try {
      return new Stat(fields[0].charAt(0), Long.parseLong(fields[2]), Long.parseLong(fields[3]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Optional<Long> psGroupOf(long pid) {
    try {
      Process ps =
          new ProcessBuilder("ps", "-o", "pgid=", "-p", Long.toString(pid))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(ps.getInputStream().readAllBytes()).strip();
      if (!ps.waitFor(5, TimeUnit.SECONDS) || ps.exitValue() != 0 || out.isEmpty()) {
        ps.destroyForcibly();
        return Optional.empty();
      }
      return Optional.of(Long.parseLong(out));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * One process's state letter, group and session.
   *
   * @param state {@code R}, {@code S}, {@code T}, {@code Z} (exited, not reaped), {@code X} (dead)
   * @param group its process group id
   * @param session its session id
   */
  private record Stat(char state, long group, long session) {
    boolean exited() {
      return state == 'Z' || state == 'X';
    }

    /** Whether it is in group {@code pgid} or in the session that group's leader started. */
    boolean of(long pgid) {
      return group == pgid || session == pgid;
    }
  }
}
