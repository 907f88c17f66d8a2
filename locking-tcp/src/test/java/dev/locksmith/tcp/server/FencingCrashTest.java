package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers in child JVMs killed with {@code kill -9} mid-block and restarted at once, with the same
 * data directory and then without one: tokens keep going up.
 */
class FencingCrashTest {
  /** Short, since a server restarted on the data directory grants nothing until it has run out. */
  private static final int TTL_MILLIS = 3_000;

  @TempDir Path dir;

  @Test
  void killedServersRestartedAtOnceGoHigherWithAndWithoutTheirDataDir() throws Exception {
    Path data = dir.resolve("data");
    long first = grantsInAChildServer(data, 3, "first");
    long sameDir = grantsInAChildServer(data, 2, "same-dir");
    long noDir = grantsInAChildServer(null, 1, "no-dir");
    assertThat(sameDir).isGreaterThan(first);
    assertThat(noDir).isGreaterThan(sameDir);
  }

  /**
   * Starts a server in a child JVM, grants lock "k" {@code count} times (waiting, after a restart
   * on the data directory, for the killed run's lease to end), then kills it.
   */
  private long grantsInAChildServer(@Nullable Path dataDir, int count, String name)
      throws Exception {
    try (ChildServer server = ChildServer.start(dataDir, dir.resolve(name + ".log"))) {
      long last = Long.MIN_VALUE;
      try (LineClient c = new LineClient(server.port()).readTimeout(3 * TTL_MILLIS)) {
        for (int i = 0; i < count; i++) {
          String ok = c.call(i + " ACQUIRE k " + TTL_MILLIS + " " + 2 * TTL_MILLIS + " t" + i);
          assertThat(ok).startsWith(i + " OK t" + i + " ");
          long token = Long.parseLong(ok.split(" ")[3]);
          assertThat(token).isGreaterThan(last);
          last = token;
          if (i + 1 < count) {
            assertThat(c.call("r" + i + " RELEASE k t" + i)).isEqualTo("r" + i + " OK");
          }
        }
        server.kill(); // while holding the lock, mid-block
      }
      return last;
    }
  }
}
