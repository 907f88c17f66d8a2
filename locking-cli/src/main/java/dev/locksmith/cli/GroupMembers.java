package dev.locksmith.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
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

  /** Whether any process of group {@code pgid} is alive (not exited). */
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
        if (stat != null && stat.group() == pgid && !stat.exited()) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return Signals.toGroup("0", pgid);
    }
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

  /** {@code /proc/PID/stat}: state and process group; null when the process is gone. */
  private static @Nullable Stat stat(Path dir) {
    String text;
    try {
      text = Files.readString(dir.resolve("stat"));
    } catch (IOException e) {
      return null;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    int close = text.lastIndexOf(')');
    if (close < 0 || close + 2 >= text.length()) {
      return null;
    }
    String[] fields = text.substring(close + 2).split(" ", 4);
    if (fields.length < 3) {
      return null;
    }
    try {
      return new Stat(fields[0].charAt(0), Long.parseLong(fields[2]));
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
   * One process's state letter and group.
   *
   * @param state {@code R}, {@code S}, {@code T}, {@code Z} (exited, not reaped), {@code X} (dead)
   * @param group its process group id
   */
  private record Stat(char state, long group) {
    boolean exited() {
      return state == 'Z' || state == 'X';
    }
  }
}
