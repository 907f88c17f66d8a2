package dev.locksmith.core;

/**
 * When the keeper last swept, and the recent gaps between its sweeps that were too long for
 * scheduling noise: the times this process stood still (a long GC pause, {@code SIGSTOP}), which
 * end the leases whose provider names a pause limit. Written by the sweep alone, read by any
 * thread.
 */
final class SweepGaps {
  // Gaps between sweeps longer than this are remembered as stops; shorter ones are scheduling
  // noise.
  private static final long STOP_FLOOR_NANOS = 5 * LeaseKeeper.TICK_NANOS;
  // Enough that a stop is still known when the lease it ended is first looked at, though the
  // sweeper was held up more than STOP_FLOOR_NANOS many times in between (a starved machine).
  static final int STOPS_KEPT = 64;

  // When the sweep last ran on the ticker (or the keeper was made): not moved when the sweep starts
  // again after an idle spell, in which no sweep saw this process run.
  private volatile long lastSweep;
  // The last STOPS_KEPT gaps over STOP_FLOOR_NANOS, as start and end pairs on the ticker, oldest
  // first; replaced before lastSweep moves.
  private volatile long[] stops = new long[0];

  SweepGaps(long now) {
    this.lastSweep = now;
  }

  /**
   * A sweep ran at {@code now}, after keeping the leases (which marks lost those a stop ended):
   * records the gap since the last one when it was a stop, for the leases not yet watched.
   */
  void swept(long now) {
    long last = lastSweep;
    if (now - last > STOP_FLOOR_NANOS) {
      stops = withStop(stops, last, now);
    }
    lastSweep = now;
  }

  /**
   * The longest time between {@code since} and {@code now} without a sweep, whether the gap is
   * still open (no sweep since) or one of the last {@link #STOPS_KEPT} stops.
   */
  long longestSince(long since, long now) {
    // lastSweep before stops: a sweep records a stop before it moves lastSweep past it.
    long longest = now - Math.max(lastSweep, since);
    long[] seen = stops;
    for (int i = 0; i < seen.length; i += 2) {
      long end = seen[i + 1];
      if (end - since > 0) {
        longest = Math.max(longest, end - Math.max(seen[i], since));
      }
    }
    return longest;
  }

  /** When the sweep last ran, on the ticker. */
  long lastSweep() {
    return lastSweep;
  }

  private static long[] withStop(long[] stops, long start, long end) {
    int keep = Math.min(stops.length, 2 * (STOPS_KEPT - 1));
    long[] next = new long[keep + 2];
    System.arraycopy(stops, stops.length - keep, next, 0, keep);
    next[keep] = start;
    next[keep + 1] = end;
    return next;
  }
}
