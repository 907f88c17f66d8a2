package dev.locksmith.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Asks {@code ps}, independently of the code under test, which processes of a process group are
 * alive. Exited processes that no one has reaped yet (state {@code Z}) do not count: where PID 1
 * reaps orphans late, as in some containers, {@code kill -0 -- -PGID} still finds them.
 */
final class GroupPs {
  private GroupPs() {}

  /** {@code "PID STAT ARGS"} of each live process in group {@code pgid}. */
  static List<String> liveMembers(long pgid) throws IOException, InterruptedException {
    Process ps = new ProcessBuilder("ps", "-eo", "pid=,pgid=,stat=,args=").start();
    String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!ps.waitFor(10, TimeUnit.SECONDS) || ps.exitValue() != 0) {
      throw new IOException("ps failed");
    }
    return out.lines()
        .map(String::strip)
        .map(line -> line.split("\\s+", 4))
        .filter(f -> f.length >= 3 && f[1].equals(Long.toString(pgid)) && !f[2].startsWith("Z"))
        .map(f -> String.join(" ", f))
        .toList();
  }

  /** Whether process {@code pid} is alive (exists and has not exited). */
  static boolean alive(long pid) throws IOException, InterruptedException {
    Process ps = new ProcessBuilder("ps", "-o", "stat=", "-p", Long.toString(pid)).start();
    String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!ps.waitFor(10, TimeUnit.SECONDS)) {
      throw new IOException("ps did not finish");
    }
    return !out.isEmpty() && !out.startsWith("Z");
  }
}
