package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The keeper's record of stops: which gaps between sweeps count, from when, and how many stay. */
class SweepGapsTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void aGapStillOpenCountsFromTheLastSweepOrLaterStart() {
    SweepGaps gaps = new SweepGaps(0);
    gaps.swept(10 * MS);

    assertThat(gaps.longestSince(0, 510 * MS)).isEqualTo(500 * MS);
    assertThat(gaps.longestSince(200 * MS, 510 * MS)).isEqualTo(310 * MS);
  }

  @Test
  void aStopThatEndedCountsOnlyFromTheGivenStartAndNotBeforeIt() {
    SweepGaps gaps = new SweepGaps(0);
    gaps.swept(1_000 * MS);
    gaps.swept(1_010 * MS);

    assertThat(gaps.longestSince(0, 1_015 * MS)).isEqualTo(1_000 * MS);
    assertThat(gaps.longestSince(400 * MS, 1_015 * MS)).isEqualTo(600 * MS);
    assertThat(gaps.longestSince(1_000 * MS, 1_015 * MS)).isEqualTo(5 * MS);
  }

  @Test
  void gapsOfSchedulingNoiseAreNoStops() {
    SweepGaps gaps = new SweepGaps(0);
    gaps.swept(40 * MS);
    gaps.swept(80 * MS);

    assertThat(gaps.longestSince(0, 80 * MS)).isZero();
  }

  @Test
  void theLastStopsAreKeptAndTheOldestDropped() {
    SweepGaps gaps = new SweepGaps(0);
    long now = 0;
    now += 2_000 * MS; // one long stop first
    gaps.swept(now);
    for (int i = 0; i < SweepGaps.STOPS_KEPT - 1; i++) {
      now += 100 * MS;
      gaps.swept(now);
    }
    assertThat(gaps.longestSince(0, now)).isEqualTo(2_000 * MS);

    now += 100 * MS;
    gaps.swept(now);
    assertThat(gaps.longestSince(0, now)).isEqualTo(100 * MS);
    assertThat(gaps.lastSweep()).isEqualTo(now);
  }
}
