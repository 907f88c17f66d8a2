package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing tokens of one lock id go up across every kind of restart of an in-process server: the
 * same data directory, a data directory added or dropped, the high-water mark deleted or left as a
 * crash leaves it. A garbled mark stops the server from starting.
 */
class FencingPersistenceTest {
  @TempDir Path dir;

  private Path mark() {
    return dir.resolve(FencingSequence.FILE_NAME);
  }

  @Test
  void restartOnTheSameDataDirGoesHigher() throws Exception {
    long first = grantsOnAServer(dir, 5);
    assertThat(Files.readString(mark()).strip())
        .as("the mark a server leaves when it stops")
        .isEqualTo(Long.toString(first));
    long second = grantsOnAServer(dir, 1);
    assertThat(second).isGreaterThan(first);
  }

  @Test
  void aDataDirAddedAfterRunningWithoutOneGoesHigher() throws Exception {
    long without = grantsOnAServer(null, 3);
    long with = grantsOnAServer(dir, 1);
    assertThat(with).isGreaterThan(without);
  }

  @Test
  void runningWithoutTheDataDirAfterRunningWithOneGoesHigher() throws Exception {
    long first = grantsOnAServer(dir, 3);
    assertRestartThenRunWithoutTheDirGoHigherThan(first, 3);
  }

  @Test
  void aDeletedMarkGoesHigher() throws Exception {
    long first = grantsOnAServer(dir, 3);
    Files.delete(mark());
    long afterLoss = grantsOnAServer(dir, 1);
    assertThat(afterLoss).isGreaterThan(first);
    Files.delete(mark());
    long afterEmptyDir = grantsOnAServer(dir, 1);
    assertThat(afterEmptyDir).isGreaterThan(afterLoss);
  }

  @Test
  void theMarkACrashLeavesMidBlockGoesHigherAlsoWhenItIsThenLost() throws Exception {
    byte[] leftByCrash;
    long last;
    try (LockServer server = RunningServer.start(b -> b.dataDir(dir))) {
      int port = server.port();
      grant(port);
      leftByCrash = Files.readAllBytes(mark()); // what a kill -9 now would leave behind
      last = grant(port);
    }
    Files.write(mark(), leftByCrash);
    assertRestartThenRunWithoutTheDirGoHigherThan(last, 2);
  }

  @Test
  void tokensAreAtLeastTheClockInMicroseconds() throws Exception {
    long before = micros(Instant.now());
    long withDir = grantsOnAServer(dir, 1);
    long withoutDir = grantsOnAServer(null, 1);
    long after = micros(Instant.now());
    assertThat(withDir).isBetween(before, after);
    assertThat(withoutDir).isBetween(withDir + 1, after);
  }

  @Test
  void aMarkAheadOfTheClockIsStillExceeded() throws Exception {
    long hourAhead = micros(Instant.now().plus(1, ChronoUnit.HOURS));
    Files.writeString(mark(), hourAhead + "\n");
    assertThat(grantsOnAServer(dir, 1)).isGreaterThan(hourAhead);
  }

  @Test
  void aGarbledMarkStopsTheServerFromStarting() throws Exception {
    for (String garbled : new String[] {"garbage", "", "-5", "12 34", "\u00e9", "1".repeat(80)}) {
      Files.writeString(mark(), garbled);
      LockServer server = LockServer.builder().port(0).dataDir(dir).build();
      assertThatThrownBy(server::start)
          .as("mark '%s'", garbled)
          .isInstanceOf(IOException.class)
          .hasMessageContaining(mark().toString())
          .hasMessageContaining("corrupt")
          .hasMessageContaining("delete it");
      assertThat(server.isClosed()).isTrue();
    }
  }

  @Test
  void twoServersCannotShareADataDir() throws Exception {
    try (LockServer first = LockServer.builder().port(0).dataDir(dir).build()) {
      first.start();
      LockServer second = LockServer.builder().port(0).dataDir(dir).build();
      assertThatThrownBy(second::start).hasMessageContaining("in use by another lock server");
    }
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  /**
   * Restarts on the data dir (granting {@code count} times), then runs once without it, the mark
   * lost: the restart's tokens go higher than {@code last}, the run without the dir's higher still.
   */
  private void assertRestartThenRunWithoutTheDirGoHigherThan(long last, int count)
      throws IOException {
    long restarted = grantsOnAServer(dir, count);
    long without = grantsOnAServer(null, 1);
    assertThat(restarted).isGreaterThan(last);
    assertThat(without).isGreaterThan(restarted);
  }

  /** Starts a server, grants lock "k" {@code count} times and stops it; the last token. */
  private static long grantsOnAServer(@Nullable Path dataDir, int count) throws IOException {
    try (LockServer server = RunningServer.start(b -> b.dataDir(dataDir))) {
      int port = server.port();
      long previous = Long.MIN_VALUE;
      for (int i = 0; i < count; i++) {
        long token = grant(port);
        assertThat(token).isGreaterThan(previous);
        previous = token;
      }
      return previous;
    }
  }

  private static long grant(int port) throws IOException {
    try (LineClient c = new LineClient(port)) {
      String ok = c.call("1 ACQUIRE k 5000 0 t");
      assertThat(ok).startsWith("1 OK t ");
      assertThat(c.call("2 RELEASE k t")).isEqualTo("2 OK");
      return Long.parseLong(ok.split(" ")[3]);
    }
  }
}
