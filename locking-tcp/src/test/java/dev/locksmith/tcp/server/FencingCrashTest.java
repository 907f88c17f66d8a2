package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers in child JVMs killed with {@code kill -9} mid-block and restarted at once, with the same
 * data directory and then without one: tokens keep going up.
 */
class FencingCrashTest {
  private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

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

  /** Starts a server in a child JVM, grants lock "k" {@code count} times, then kills it. */
  private long grantsInAChildServer(@Nullable Path dataDir, int count, String name)
      throws Exception {
    Path log = dir.resolve(name + ".log");
    ChildJvm.Builder jvm = ChildJvm.builder(ChildServerMain.class).output(log);
    if (dataDir != null) {
      jvm.args(dataDir.toString());
    }
    try (ChildJvm child = jvm.start()) {
      Process server = child.process();
      int[] port = {0};
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> (port[0] = listeningPort(log)) > 0 || !server.isAlive());
      assertThat(server.isAlive()).as("server log %s", log).isTrue();
      long last = Long.MIN_VALUE;
      try (LineClient c = new LineClient(port[0])) {
        for (int i = 0; i < count; i++) {
          String ok = c.call(i + " ACQUIRE k 60000 0 t" + i);
          assertThat(ok).startsWith(i + " OK t" + i + " ");
          long token = Long.parseLong(ok.split(" ")[3]);
          assertThat(token).isGreaterThan(last);
          last = token;
          if (i + 1 < count) {
            assertThat(c.call("r" + i + " RELEASE k t" + i)).isEqualTo("r" + i + " OK");
          }
        }
        server.destroyForcibly(); // while holding the lock, mid-block
        assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      return last;
    }
  }

  private static int listeningPort(Path log) throws IOException {
    Matcher m = LISTENING.matcher(Files.readString(log));
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
