package dev.locksmith.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stops a child process and its descendants one by one: SIGTERM, then SIGKILL after a grace period.
 * Only the fallback for hosts where COMMAND cannot get a process group of its own ({@link
 * Launcher#NONE}): a step that a descendant starts between the listing and its signal escapes.
 */
final class ChildProcesses {
  private ChildProcesses() {}

  static void terminate(Process process, Duration grace) {
    List<ProcessHandle> tree = process.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
      for (ProcessHandle handle : tree) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          handle.onExit().get(left, TimeUnit.NANOSECONDS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // Still running after the grace period: killed below.
    }
    // Whatever ignored SIGTERM, including descendants started meanwhile, gets SIGKILL.
    List<ProcessHandle> left = new ArrayList<>(tree);
    left.addAll(process.descendants().toList());
    left.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
