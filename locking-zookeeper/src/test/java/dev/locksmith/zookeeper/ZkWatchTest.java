package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.server.command.FourLetterCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter whose predecessor goes just before it sets its watch leaves no watch behind on the
 * ensemble: a watch on a sequential name that never comes back would stay until the session ends,
 * one more with each such race.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZkWatchTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aPredecessorReleasedJustBeforeTheWatchLeavesNoWatchBehind() throws Exception {
    System.setProperty("zookeeper.4lw.commands.whitelist", "srvr,wchp");
    FourLetterCommands.resetWhiteList();
    try (TestingServer server = TestZooKeeper.start();
        ZkLockProvider holder = provider(server);
        ZkLockProvider waiter = provider(server)) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of("watched", TTL)).orElseThrow();
      List<String> released = new CopyOnWriteArrayList<>();
      waiter.beforeWatch(
          predecessor -> {
            waiter.beforeWatch(path -> {});
            assertThat(holder.release(held)).isTrue();
            released.add(predecessor);
          });

      LeaseGrant next = waiter.acquire(LockRequest.of("watched", TTL), TTL).orElseThrow();
      assertThat(waiter.release(next)).isTrue();

      assertThat(released).hasSize(1);
      assertThat(watchedPaths(server.getPort()))
          .as("the paths the ensemble watches")
          .doesNotContain(released.get(0));
    } finally {
      System.clearProperty("zookeeper.4lw.commands.whitelist");
      FourLetterCommands.resetWhiteList();
    }
  }

  private static ZkLockProvider provider(TestingServer server) {
    return ZkLockProvider.create(ZkTestServers.url(server.getConnectString(), "watch", ""));
  }

  /** The paths the ensemble keeps watches on ({@code wchp}), over every session. */
  private static List<String> watchedPaths(int port) throws IOException {
    String reply = TestZooKeeper.fourLetterWord(port, "wchp");
    assertThat(reply).as("a wchp reply").doesNotContain("not in the whitelist");
    return reply.lines().filter(line -> line.startsWith("/")).toList();
  }
}
