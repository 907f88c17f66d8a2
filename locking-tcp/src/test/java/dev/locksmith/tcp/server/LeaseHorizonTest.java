package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the stored lease horizon is raised, lowered and read back, with a wall clock the test sets.
 */
class LeaseHorizonTest {
  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);

  private long stored() throws IOException {
    return StoredNumber.read(dir.resolve(LeaseHorizon.FILE_NAME), text -> text);
  }

  @Test
  void aLeasePastTheHorizonRaisesItOneSpanFurtherAndLeasesWithinItWriteNothing() throws Exception {
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    horizon.cover(10_000);
    assertThat(stored()).isEqualTo(1_011_000);
    Files.delete(dir.resolve(LeaseHorizon.FILE_NAME));
    clock.addAndGet(LeaseHorizon.SPAN_MILLIS);
    horizon.cover(10_000);
    assertThat(dir.resolve(LeaseHorizon.FILE_NAME)).as("no write within the span").doesNotExist();
    clock.addAndGet(1);
    horizon.cover(10_000);
    assertThat(stored()).isEqualTo(1_012_001);
  }

  @Test
  void leasesEndingEverLaterCostAWritePerDoublingNotOnePerRequest() throws Exception {
    // A client asking a ttl 2 s longer with each request, pipelined: every request wrote (and
    // fsynced) the horizon on the core thread, stalling every other connection.
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    int writes = 0;
    for (int i = 0; i < 50; i++) {
      long before = horizon.stored();
      horizon.cover(10_000 + 2_000L * i);
      if (horizon.stored() != before) {
        writes++;
      }
      clock.incrementAndGet();
    }
    assertThat(writes).as("writes for 50 requests").isLessThanOrEqualTo(8);
    assertThat(stored()).as("still covers the last lease").isGreaterThan(1_000_049 + 108_000);
    // Raises a second apart, as a busy server's with one ttl, keep the span at a second.
    clock.addAndGet(200_000);
    horizon.cover(10_000);
    clock.addAndGet(LeaseHorizon.SPAN_MILLIS + 1);
    horizon.cover(10_000);
    assertThat(stored()).isEqualTo(clock.get() + 10_000 + LeaseHorizon.SPAN_MILLIS);
  }

  @Test
  void aRestartWaitsUntilTheStoredHorizon() throws Exception {
    LeaseHorizon.open(dir, clock::get).cover(60_000);
    clock.addAndGet(20_000);
    assertThat(LeaseHorizon.open(dir, clock::get).inheritedWaitMillis()).isEqualTo(41_000);
    clock.addAndGet(50_000);
    assertThat(LeaseHorizon.open(dir, clock::get).inheritedWaitMillis()).isZero();
    assertThat(LeaseHorizon.open(null, clock::get).inheritedWaitMillis()).isZero();
  }

  @Test
  void theHorizonIsLoweredToTheLeasesStillHeldOnlyWhenThatSavesMoreThanTheLoweringPeriod()
      throws Exception {
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    horizon.cover(60_000);
    horizon.lower(() -> 56_000);
    assertThat(stored()).as("4 s lower: not worth a write").isEqualTo(1_061_000);
    horizon.lower(() -> 2_000);
    assertThat(stored()).isEqualTo(1_003_000);
    horizon.cover(2_500);
    assertThat(stored()).as("a lease within it").isEqualTo(1_003_000);
    horizon.cover(5_000);
    assertThat(stored()).as("raised again past it").isEqualTo(1_006_000);
  }

  @Test
  void aStopLowersTheHorizonToTheLeasesStillHeldOrToNothing() throws Exception {
    LeaseHorizon held = LeaseHorizon.open(dir, clock::get);
    held.cover(60_000);
    held.close(3_000);
    assertThat(stored()).isEqualTo(1_003_000);
    clock.addAndGet(5_000);
    LeaseHorizon none = LeaseHorizon.open(dir, clock::get);
    none.cover(60_000);
    none.close(0);
    assertThat(stored()).isZero();
    assertThat(LeaseHorizon.open(dir, clock::get).inheritedWaitMillis()).isZero();
  }

  @Test
  void aRunWaitingForTheLeasesOfTheRunBeforeNeverLowersTheHorizonBelowTheirs() throws Exception {
    LeaseHorizon.open(dir, clock::get).cover(60_000);
    clock.addAndGet(10_000);
    LeaseHorizon restarted = LeaseHorizon.open(dir, clock::get);
    restarted.lower(() -> 0);
    assertThat(stored()).as("lowered while waiting").isEqualTo(1_061_000);
    restarted.close(0);
    assertThat(stored()).as("stopped (or crashed again) while waiting").isEqualTo(1_061_000);
    assertThat(LeaseHorizon.open(dir, clock::get).inheritedWaitMillis()).isEqualTo(51_000);
  }

  @Test
  void aWallClockSteppedForwardRaisesTheHorizonToTheLeasesStillHeld() throws Exception {
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    horizon.cover(60_000);
    // The wall clock steps 30 s forward; the lease, timed on the monotonic clock, has 55 s left.
    clock.addAndGet(30_000);
    horizon.lower(() -> 55_000);
    assertThat(stored())
        .as("a crash now must make the restart wait for the lease")
        .isEqualTo(1_030_000 + 55_000 + LeaseHorizon.SPAN_MILLIS);
  }

  @Test
  void aLeaseEndingAtTheStoredHorizonDoesNotRaiseItByARoundedMillisecond() throws Exception {
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    horizon.cover(10_000);
    horizon.cover(11_000);
    assertThat(stored()).as("a lease ending at the horizon").isEqualTo(1_011_000);
    Files.delete(dir.resolve(LeaseHorizon.FILE_NAME));
    // The wall clock is read rounded down and the time left rounded up, so the check can find the
    // lease ending a millisecond past the stored horizon.
    horizon.lower(() -> 11_001);
    assertThat(dir.resolve(LeaseHorizon.FILE_NAME)).as("no write for rounding").doesNotExist();
    assertThat(horizon.stored()).isEqualTo(1_011_000);
  }

  @Test
  void aClosedHorizonIsNeverWrittenAgain() throws Exception {
    LeaseHorizon horizon = LeaseHorizon.open(dir, clock::get);
    horizon.cover(60_000);
    horizon.close(60_000);
    assertThat(stored()).isEqualTo(1_060_000);
    // The periodic lowering task, run once more after the stop, when the directory may already be
    // another server's.
    horizon.lower(() -> 0);
    assertThat(stored()).isEqualTo(1_060_000);
  }

  @Test
  void aHorizonThatCannotBeWrittenRefusesTheLease() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("file"), "");
    LeaseHorizon horizon = LeaseHorizon.open(notADirectory, clock::get);

    assertThatThrownBy(() -> horizon.cover(1_000))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("cannot persist lease horizon 1002000");
  }
}
