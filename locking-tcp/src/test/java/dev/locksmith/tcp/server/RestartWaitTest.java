package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server started on a data directory while leases its run before granted may still be held (their
 * holders may not have heard of the crash or stop) grants no lock until they have ended.
 */
class RestartWaitTest {
  private static final int TTL_MILLIS = 3_000;

  @TempDir Path dir;

  @Test
  void aServerRestartedAfterAKillGrantsNoLockUntilTheKilledRunsLeasesHaveEnded() throws Exception {
    Path data = dir.resolve("data");
    long start = System.nanoTime();
    try (ChildServer first = ChildServer.start(data, dir.resolve("first.log"));
        LineClient holder = new LineClient(first.port())) {
      assertThat(holder.call("a ACQUIRE job " + TTL_MILLIS + " 0 holder")).startsWith("a OK");
      first.kill();
    }
    try (ChildServer second = ChildServer.start(data, dir.resolve("second.log"))) {
      assertGrantedOnlyAtTheEndOfTheLease(second.port(), start);
    }
  }

  @Test
  void aServerStoppedWhileALeaseIsHeldGrantsNoLockUntilThatLeaseHasEnded() throws Exception {
    Path data = dir.resolve("data");
    long start = System.nanoTime();
    try (LockServer first = RunningServer.start(b -> b.dataDir(data));
        LineClient holder = new LineClient(first.port())) {
      assertThat(holder.call("a ACQUIRE job " + TTL_MILLIS + " 0 holder")).startsWith("a OK");
      first.close(); // the holder's connection is still open
    }
    try (LockServer second = RunningServer.start(b -> b.dataDir(data))) {
      assertGrantedOnlyAtTheEndOfTheLease(second.port(), start);
    }
  }

  /**
   * At the stop, a lease beyond {@code maxDetachedLeases} is released at once rather than kept, but
   * its holder may not hear of the stop either: the restart waits for it all the same.
   */
  @Test
  void aStopWaitsForTheLeasesItReleasedBeyondTheDetachedLimit() throws Exception {
    Path data = dir.resolve("data");
    long start = System.nanoTime();
    try (LockServer first = RunningServer.start(b -> b.dataDir(data).maxDetachedLeases(1));
        LineClient holder = new LineClient(first.port())) {
      // Held 2 s, so that it is still held, and takes the one place of a detached lease, at the
      // stop.
      assertThat(holder.call("a ACQUIRE kept 2000 0 holder")).startsWith("a OK");
      assertThat(holder.call("h HOLD kept holder 2000")).startsWith("h OK");
      assertThat(holder.call("b ACQUIRE job " + TTL_MILLIS + " 0 holder")).startsWith("b OK");
      first.close(); // "job" is beyond the limit of detached leases
      // With one event loop (the default) the stop handles the connection's close before its last
      // write of the horizon.
      assertThat(first.runtime().metrics().disconnectReleases.sum())
          .as("'job' released at the stop")
          .isEqualTo(1);
    }
    try (LockServer second = RunningServer.start(b -> b.dataDir(data))) {
      assertGrantedOnlyAtTheEndOfTheLease(second.port(), start);
    }
  }

  @Test
  void aServerStoppedWithNoLeaseHeldGrantsAtOnceAfterARestart() throws Exception {
    Path data = dir.resolve("data");
    stopWhileALongLeaseIs(data, "released");
    assertGrantedAtOnceAfterARestart(b -> b.dataDir(data));
  }

  @Test
  void aZeroMaxRestartWaitGrantsAtOnce() throws Exception {
    Path data = dir.resolve("data");
    stopWhileALongLeaseIs(data, "held");
    assertGrantedAtOnceAfterARestart(b -> b.dataDir(data).maxRestartWait(Duration.ZERO));
  }

  @Test
  void aFarHorizonWithNoPracticalLimitWaitsWithoutOverflowing() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve(LeaseHorizon.FILE_NAME), Long.MAX_VALUE + "\n");

    try (LockServer server =
            RunningServer.start(
                b -> b.dataDir(data).maxRestartWait(Duration.ofSeconds(Long.MAX_VALUE)));
        LineClient client = new LineClient(server.port())) {
      assertThat(client.call("b ACQUIRE job 1000 0 next")).isEqualTo("b BUSY");
      assertThat(client.call("t STATS")).containsPattern(" restart_wait_ms=[1-9][0-9]{11,} ");
    }
  }

  @Test
  void aCorruptHorizonStopsTheStartAndSaysWhatToDo() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve(LeaseHorizon.FILE_NAME), "soon\n");

    assertThatThrownBy(() -> RunningServer.start(b -> b.dataDir(data)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("lease horizon file")
        .hasMessageContaining("'soon' is not a non-negative number")
        .hasMessageContaining("delete it");
  }

  /**
   * Runs a server on {@code data} in which "job" is taken for 10 minutes, and released too when
   * {@code state} says so, and stops it while the holder's connection is still open.
   */
  private static void stopWhileALongLeaseIs(Path data, String state) throws Exception {
    try (LockServer first = RunningServer.start(b -> b.dataDir(data));
        LineClient holder = new LineClient(first.port())) {
      assertThat(holder.call("a ACQUIRE job 600000 0 holder")).startsWith("a OK");
      if (state.equals("released")) {
        assertThat(holder.call("r RELEASE job holder")).isEqualTo("r OK");
      }
      first.close();
    }
  }

  private static void assertGrantedAtOnceAfterARestart(UnaryOperator<LockServerBuilder> settings)
      throws Exception {
    try (LockServer second = RunningServer.start(settings);
        LineClient client = new LineClient(second.port())) {
      assertThat(client.call("a ACQUIRE job 1000 0 next")).startsWith("a OK");
    }
  }

  /**
   * On the restarted server, the lock counts as held by no one known (and every other lock too)
   * until the lease taken at {@code start} on the server before has ended, and a waiter gets it
   * then.
   */
  private static void assertGrantedOnlyAtTheEndOfTheLease(int port, long start) throws Exception {
    try (LineClient client = new LineClient(port).readTimeout(3 * TTL_MILLIS)) {
      assertThat(client.call("b ACQUIRE job 1000 0 next")).isEqualTo("b BUSY");
      assertThat(client.call("c ACQUIRE-ALL 1000 1 other -")).isEqualTo("c BUSY other");
      assertThat(client.status("other")).startsWith("s HELD 0 ").endsWith(" 0 -");
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + port)) {
        // Named for what it is, not as a holder called "-" that no one can find.
        assertThat(provider.status("other").currentHolder())
            .hasValueSatisfying(
                holder ->
                    assertThat(holder.owner())
                        .isEqualTo("the lock server's restart wait (leases of its run before)"));
      }
      assertThat(client.call("t STATS")).containsPattern(" restart_wait_ms=[1-9][0-9]* ");
      assertThat(client.call("w ACQUIRE job 1000 " + 2 * TTL_MILLIS + " next"))
          .startsWith("w OK next ");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("granted at the end of the lease the server before granted, not before")
          .isGreaterThanOrEqualTo(Duration.ofMillis(TTL_MILLIS));
      assertThat(client.call("t STATS")).contains(" restart_wait_ms=0 ");
    }
  }
}
