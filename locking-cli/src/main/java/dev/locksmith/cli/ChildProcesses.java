package dev.locksmith.cli;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Stops a child process and its descendants: SIGTERM, then SIGKILL after a grace period. */
final class ChildProcesses {
  private ChildProcesses() {}

  static void terminate(Process process, Duration grace) {
    List<ProcessHandle> tree = process.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        tree.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
