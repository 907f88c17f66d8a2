package dev.locksmith.tcp.server;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing tokens from one counter for the whole server, so they strictly increase per lock id and
 * nothing is kept per id.
 *
 * <p>The rule, with and without a data directory: <b>token = max(last issued + 1, floor)</b>, where
 * the floor is the wall clock in microseconds since the epoch, and "last issued" starts after the
 * high-water mark stored in {@code fencing.hwm} when there is one (else at 0, so the first token is
 * the clock). A token is never issued ahead of the clock: if the counter catches up with the clock
 * (more than one grant per microsecond) the next grant waits for the clock, by at most a
 * millisecond. Before a token above the stored mark is handed out, a new mark is written (write
 * temp file, fsync, atomic rename, directory fsync) that reserves the next {@code span} tokens, so
 * the mark is written at most once per {@code span} microseconds however busy the server is. When
 * the server stops, it issues no more tokens and lowers the mark to the last one, which is by then
 * behind the clock. A start finding a mark ahead of the clock (a crash within the last reserved
 * span) waits until the clock has passed it, at most {@code span} microseconds, before serving.
 *
 * <p>Why tokens never repeat or go back, for one server process: each token exceeds the previous.
 * Across a restart with the mark: tokens exceed the mark, which is at least every token issued
 * before (it is written before any token above it is handed out, and only lowered to the last token
 * once no more are issued), whatever the clock does. Across a restart without the mark (none
 * configured, deleted, or a data directory added for the first time): every earlier token was at
 * most the clock when it was issued, and the new ones are at least the clock now; that holds as
 * long as the host's clock has not been set back, since the last token of the previous run, by more
 * than the time the restart took. A mark that cannot be read stops the server from starting rather
 * than letting it fall back to the clock.
 *
 * <p>Not thread-safe: the server's core thread alone uses it (and the starting thread before).
 */
final class FencingSequence {
  static final String FILE_NAME = "fencing.hwm";

  /** Tokens (microseconds of clock) each write of the mark reserves by default: one second. */
  static final long DEFAULT_SPAN = 1_000_000;

  /**
   * A grant whose token would be at most this far ahead of the clock waits for the clock; further
   * ahead, the clock was set back and the token is issued ahead of it.
   */
  private static final long MAX_WAIT_MICROS = 1_000;

  private static final Logger LOG = LoggerFactory.getLogger(FencingSequence.class);

  private final @Nullable Path file;
  private final long span;
  private final LongSupplier clock;
  private long last;
  private long reservedUpTo;
  private boolean clockBehind;
  private boolean closed;

  private FencingSequence(@Nullable Path file, long span, LongSupplier clock, long last) {
    this.file = file;
    this.span = span;
    this.clock = clock;
    this.last = last;
    this.reservedUpTo = file == null ? Long.MAX_VALUE : last;
  }

  /** The wall clock in microseconds since the epoch: the floor of every token. */
  static long wallClockMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
  }

  /**
   * A sequence persisted in {@code dataDir}, or one that follows the clock alone when it is null.
   *
   * @param span tokens reserved by each write of the mark, at least 1
   * @throws IOException when the mark cannot be read or is not a non-negative number
   */
  static FencingSequence open(@Nullable Path dataDir, long span) throws IOException {
    return open(dataDir, span, FencingSequence::wallClockMicros);
  }

  /** As {@link #open(Path, long)}, with the clock given (microseconds since the epoch). */
  static FencingSequence open(@Nullable Path dataDir, long span, LongSupplier clock)
      throws IOException {
    if (span < 1) {
      throw new IllegalArgumentException("span must be positive, was " + span);
    }
    if (dataDir == null) {
      LOG.info("Fencing tokens follow the clock (no data directory)");
      return new FencingSequence(null, span, clock, 0);
    }
    Path file = dataDir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      LOG.info("No fencing high-water mark in {} yet; tokens start from the clock", dataDir);
      return new FencingSequence(file, span, clock, 0);
    }
    long stored = read(file);
    long ahead = stored - clock.getAsLong();
    // A crash leaves the mark up to a span (of this run's setting or the default) ahead.
    if (ahead >= 0 && ahead <= Math.max(span, DEFAULT_SPAN) + MAX_WAIT_MICROS) {
      LOG.info(
          "Fencing high-water mark {} in {} is {} us ahead of the clock; waiting for the clock",
          stored,
          file,
          ahead);
      awaitClockPast(clock, stored, ahead + TimeUnit.MILLISECONDS.toMicros(100));
    } else if (ahead > 0) {
      LOG.warn(
          "Fencing high-water mark {} in {} is {} s ahead of the clock: was the clock set back? Tokens"
              + " continue after the mark; until the clock has caught up, a restart without this"
              + " file could issue tokens that were issued before",
          stored,
          file,
          ahead / 1_000_000);
    }
    LOG.info("Fencing tokens continue after high-water mark {} from {}", stored, file);
    return new FencingSequence(file, span, clock, stored);
  }

  private static long read(Path file) throws IOException {
    return StoredNumber.read(
        file,
        text ->
            "fencing high-water mark file "
                + file
                + " is corrupt: '"
                + text
                + "' is not a non-negative number. It should hold at least the highest fencing token"
                + " the server issued: write such a number into it, or delete it to start from the"
                + " clock (safe unless the clock was set back since those tokens were issued)");
  }

  /**
   * Waits until the clock is past {@code target}, at most {@code limitMicros} of real time.
   *
   * @return whether the clock passed it
   */
  private static boolean awaitClockPast(LongSupplier clock, long target, long limitMicros)
      throws InterruptedIOException {
    long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(limitMicros);
    long now;
    while ((now = clock.getAsLong()) <= target) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      long millis = Math.min(target - now + 1, TimeUnit.NANOSECONDS.toMicros(left)) / 1000;
      if (millis > 0) {
        try {
          Thread.sleep(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for the clock");
        }
      } else {
        Thread.onSpinWait();
      }
    }
    return true;
  }

  /**
   * The next token: max(last + 1, clock), never ahead of the clock unless it went back. Reserves
   * (and persists) the next span first when the token is above the stored mark.
   *
   * @throws UncheckedIOException when the mark cannot be written; no token is used up then
   * @throws IllegalStateException after {@link #close()}
   */
  long next() {
    if (closed) {
      throw new IllegalStateException("the fencing sequence is closed");
    }
    if (last == Long.MAX_VALUE) {
      throw new UncheckedIOException(
          new IOException("fencing tokens exhausted: the last one was " + last));
    }
    long candidate = last + 1;
    long now = clock.getAsLong();
    if (candidate > now && candidate - now <= MAX_WAIT_MICROS) {
      long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(2 * MAX_WAIT_MICROS);
      while ((now = clock.getAsLong()) < candidate && System.nanoTime() - deadline < 0) {
        Thread.onSpinWait();
      }
    }
    if (candidate > now) {
      if (!clockBehind) {
        clockBehind = true;
        LOG.warn(
            "The clock is {} us behind the fencing tokens (set back?); tokens continue from the"
                + " last one, ahead of the clock, until it catches up",
            candidate - now);
      }
    } else if (clockBehind) {
      clockBehind = false;
      LOG.info("The clock has caught up with the fencing tokens");
    }
    long token = Math.max(candidate, now);
    if (token > reservedUpTo) {
      reserve(token > Long.MAX_VALUE - span ? Long.MAX_VALUE : token + span - 1);
    }
    last = token;
    return token;
  }

  /** The last token handed out (0 before the first one without a stored mark). */
  long last() {
    return last;
  }

  /** The highest token the stored mark allows without another write. */
  long reservedUpTo() {
    return reservedUpTo;
  }

  /**
   * Called when the server stops: no token is issued after this. Waits (at most a millisecond)
   * until the clock is past the last token and lowers the stored mark to that token, so that a
   * restart need not wait for the clock. Idempotent.
   */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (last - clock.getAsLong() <= MAX_WAIT_MICROS) {
        awaitClockPast(clock, last, 2 * MAX_WAIT_MICROS);
      }
      if (file != null && reservedUpTo > last) {
        StoredNumber.write(file, last);
        reservedUpTo = last;
      }
    } catch (IOException e) {
      LOG.warn("Cannot lower the fencing high-water mark to {}: {}", last, e.toString());
    }
  }

  /** Whether {@link #close()} was called: {@link #next()} then refuses. */
  boolean isClosed() {
    return closed;
  }

  private void reserve(long upTo) {
    Path target = file;
    if (target == null) {
      return;
    }
    try {
      StoredNumber.write(target, upTo);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot persist fencing high-water mark " + upTo + " to " + target, e);
    }
    reservedUpTo = upTo;
  }
}
