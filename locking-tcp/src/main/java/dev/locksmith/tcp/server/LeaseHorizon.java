package dev.locksmith.tcp.server;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time by which every lease the server has granted ends, kept in {@code leases.horizon} in the
 * data directory, so that a server started after a crash can wait for the leases of the run before
 * it (which live only in memory) to end before it grants any: their holders may not have heard of
 * the crash, and take them for held until their deadlines, which never pass the server's ends.
 *
 * <p>The stored horizon is wall-clock milliseconds since the epoch. It is raised before a grant or
 * an extension whose end would pass it, to that end plus a span: {@link #SPAN_MILLIS}, so that a
 * busy server writes it (with fsync) about once per span, doubled at each raise that follows the
 * last within half a span, so that leases that end ever later faster than the clock runs (a client
 * asking a longer ttl with each request) cost a write per doubling, not one per request on the core
 * thread; it is lowered to the latest end of the leases still held (plus a span) at most once per
 * {@link #LOWER_EVERY_MILLIS}, when that would shorten a restart's wait by more than that, and when
 * the server stops; the same periodic check raises it when the leases held end after it (the wall
 * clock stepped forward). Without a data directory nothing is kept and a start does not wait.
 *
 * <p>Not thread-safe: the server's core thread alone uses it (and the starting thread before).
 */
final class LeaseHorizon {
  static final String FILE_NAME = "leases.horizon";

  /** How far past the end that needs it a write of the horizon reaches, at least. */
  static final long SPAN_MILLIS = 1_000;

  // The longest span: the longest ttl the protocol takes.
  private static final long MAX_SPAN_MILLIS = 1_000_000_000_000L;

  /** How often the horizon is brought down to the leases still held, at most. */
  static final long LOWER_EVERY_MILLIS = 5_000;

  /**
   * How far the leases held may end past the stored horizon before the periodic check raises it:
   * their end is the wall clock (read rounded down) plus their time left (rounded up), so a lease
   * the horizon covers exactly can seem to end a millisecond or two past it. A forward step of the
   * wall clock this small is not made up for; a server started after a crash has spent longer than
   * that starting.
   */
  static final long RAISE_TOLERANCE_MILLIS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(LeaseHorizon.class);

  private final @Nullable Path file;
  private final LongSupplier clock;
  private final long inherited;
  private long stored;
  private boolean closed;
  // The span of the last raise, and when it was made: raises in quick succession double it.
  private long span = SPAN_MILLIS;
  private long lastRaise = Long.MIN_VALUE;

  private LeaseHorizon(@Nullable Path file, LongSupplier clock, long inherited) {
    this.file = file;
    this.clock = clock;
    this.inherited = inherited;
    this.stored = inherited;
  }

  /**
   * The horizon kept in {@code dataDir}, or none when it is null.
   *
   * @throws IOException when the stored horizon cannot be read or is not a non-negative number
   */
  static LeaseHorizon open(@Nullable Path dataDir) throws IOException {
    return open(dataDir, System::currentTimeMillis);
  }

  /** As {@link #open(Path)}, with the wall clock given (milliseconds since the epoch). */
  static LeaseHorizon open(@Nullable Path dataDir, LongSupplier clock) throws IOException {
    if (dataDir == null) {
      return new LeaseHorizon(null, clock, 0);
    }
    Path file = dataDir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return new LeaseHorizon(file, clock, 0);
    }
    long stored =
        StoredNumber.read(
            file,
            text ->
                "lease horizon file "
                    + file
                    + " is corrupt: '"
                    + text
                    + "' is not a non-negative number. It holds when the leases of the last run end"
                    + " (milliseconds since the epoch): delete it to grant at once, if no holder"
                    + " of that run may still be running");
    return new LeaseHorizon(file, clock, stored);
  }

  /** Milliseconds until the leases of the run before may have ended; 0 when they have. */
  long inheritedWaitMillis() {
    return Math.max(0, inherited - clock.getAsLong());
  }

  /**
   * Makes sure the stored horizon covers a lease ending {@code ttlMillis} from now, writing it
   * first when it does not.
   *
   * @throws UncheckedIOException when the horizon cannot be written; the lease must not be granted
   *     or extended then
   */
  void cover(long ttlMillis) {
    if (file == null) {
      return;
    }
    long now = clock.getAsLong();
    long end = now + ttlMillis;
    if (end <= stored) {
      return;
    }
    boolean soon = lastRaise != Long.MIN_VALUE && now - lastRaise < SPAN_MILLIS / 2;
    long nextSpan = soon ? Math.min(span * 2, MAX_SPAN_MILLIS) : SPAN_MILLIS;
    long horizon = end + nextSpan;
    try {
      StoredNumber.write(file, horizon);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot persist lease horizon " + horizon + " to " + file, e);
    }
    stored = horizon;
    span = nextSpan;
    lastRaise = now;
  }

  /**
   * Brings the stored horizon down to the latest end of the leases still held when that is more
   * than {@link #LOWER_EVERY_MILLIS} earlier, never below the horizon the run before left (its
   * leases may still be held while this run waits for them); raises it to that end when it is later
   * than the stored horizon, as after the wall clock stepped forward (leases are timed on the
   * monotonic clock, the horizon on the wall clock), beyond {@link #RAISE_TOLERANCE_MILLIS}. Does
   * nothing once {@linkplain #close closed}: the data directory may be another server's by then.
   *
   * @param latestLeftMillis how long the last of the leases still held has left, 0 when none is
   */
  void lower(LongSupplier latestLeftMillis) {
    if (file == null || closed) {
      return;
    }
    long left = latestLeftMillis.getAsLong();
    long horizon = clock.getAsLong() + left + SPAN_MILLIS;
    if (left > 0 && horizon - SPAN_MILLIS - stored > RAISE_TOLERANCE_MILLIS) {
      raiseTo(horizon);
    } else if (stored - horizon > LOWER_EVERY_MILLIS) {
      lowerTo(horizon);
    }
  }

  /** Writes {@code horizon}, above the stored one; a failed write is logged and tried next time. */
  private void raiseTo(long horizon) {
    try {
      StoredNumber.write(requireNonNull(file), horizon);
      stored = horizon;
      LOG.warn(
          "Raised the lease horizon to {}: the leases held end after the stored one (the wall"
              + " clock stepped forward?)",
          horizon);
    } catch (IOException e) {
      LOG.error("Cannot raise the lease horizon to {}: {}", horizon, e.toString());
    }
  }

  /**
   * Called when the server stops: lowers the stored horizon to the latest end of the leases still
   * held, or to nothing when none is, so that a restart waits only for those (and for those of the
   * run before, if their horizon has not passed yet).
   */
  void close(long latestLeftMillis) {
    closed = true;
    if (file != null && stored != 0) {
      lowerTo(latestLeftMillis == 0 ? 0 : clock.getAsLong() + latestLeftMillis);
    }
  }

  /**
   * Writes {@code horizon}, or the run before's if that is later and still ahead, when it is below
   * the stored one. A failed write is logged; the higher horizon stays, which only makes a restart
   * wait longer.
   */
  private void lowerTo(long horizon) {
    long lowered = inherited > clock.getAsLong() ? Math.max(horizon, inherited) : horizon;
    if (file == null || lowered >= stored) {
      return;
    }
    try {
      StoredNumber.write(file, lowered);
      stored = lowered;
      lastRaise = Long.MIN_VALUE; // the leases end earlier than it reached: back to one span
    } catch (IOException e) {
      LOG.warn("Cannot lower the lease horizon to {}: {}", lowered, e.toString());
    }
  }

  /** The stored horizon, milliseconds since the epoch; 0 when none is stored. */
  long stored() {
    return stored;
  }
}
