package dev.locksmith.cli.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The demo's faults: once a quarter of the sections ran, a worker inside its critical section is
 * paused with SIGSTOP for twice the TTL; once half ran, another holder is killed with SIGKILL.
 */
final class Chaos {
  private final List<Process> processes;
  private final long pauseNanos;
  private final int total;
  private final Timeline timeline;
  private final boolean[] inSection;
  private int completed;
  private int paused = -1;
  private long pausedAt;
  private boolean resumed;
  private int killed = -1;

  Chaos(List<Process> processes, Duration ttl, int total, Timeline timeline) {
    this.processes = processes;
    this.pauseNanos = ttl.multipliedBy(2).toNanos();
    this.total = total;
    this.timeline = timeline;
    this.inSection = new boolean[processes.size()];
  }

  /** The worker killed on purpose, or -1. */
  int killed() {
    return killed;
  }

  void seen(DemoEvent event) {
    switch (event.kind()) {
      case "acquired" -> inSection[event.worker()] = true;
      case "written", "refused" -> inSection[event.worker()] = false;
      case "released" -> completed++;
      default -> {}
    }
  }

  void tick() throws IOException, InterruptedException {
    if (paused < 0 && completed >= total / 4) {
      int holder = holderOtherThan(-1);
      if (holder >= 0) {
        signal("STOP", holder);
        paused = holder;
        pausedAt = System.nanoTime();
        timeline.note(
            "  >> SIGSTOP worker " + holder + " inside its critical section, for twice the ttl");
      }
    } else if (paused >= 0 && !resumed && System.nanoTime() - pausedAt >= pauseNanos) {
      signal("CONT", paused);
      resumed = true;
      timeline.note(
          "  >> SIGCONT worker " + paused + ": its lease has expired; its write must be refused");
    } else if (resumed && killed < 0 && completed >= total / 2) {
      int holder = holderOtherThan(paused);
      if (holder >= 0) {
        processes.get(holder).destroyForcibly();
        killed = holder;
        timeline.note("  >> SIGKILL worker " + holder + " while it holds the lock");
      }
    }
  }

  private int holderOtherThan(int excluded) {
    for (int w = 0; w < inSection.length; w++) {
      if (w != excluded && inSection[w] && processes.get(w).isAlive()) {
        return w;
      }
    }
    return -1;
  }

  private void signal(String signal, int worker) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(processes.get(worker).pid()))
        .inheritIO()
        .start()
        .waitFor();
  }
}
