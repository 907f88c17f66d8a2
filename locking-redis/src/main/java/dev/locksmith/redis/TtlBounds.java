package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import java.time.Duration;
import java.util.Objects;

/** The bounds on the TTL of a request or renewal, checked before any command is sent. */
final class TtlBounds {
  /** The longest TTL in days; see {@link #MAX_TTL}. */
  static final int MAX_TTL_DAYS = 365;

  /**
   * The longest TTL a request or renewal may give: 365 days, the bound Locksmith's engine puts on
   * every ttl ({@code Durations.MAX} in locking-core). Longer leases are a mistake rather than a
   * need, and the bound keeps every value computed from a TTL far from overflow: the milliseconds
   * sent to Redis, {@code ttl.toNanos()} and the local deadline {@code nanoTime + ttl}. Without it
   * a TTL of 200000 days ran the acquire script and then overflowed, leaving a lock held for
   * centuries by an acquisition that had failed; now it fails with an {@link
   * IllegalArgumentException} before any command is sent.
   */
  static final Duration MAX_TTL = Duration.ofDays(MAX_TTL_DAYS);

  private TtlBounds() {}

  /**
   * Refuses a TTL that is not positive or is longer than {@link #MAX_TTL}, before anything is sent.
   */
  static Duration checkTtl(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    if (ttl.compareTo(MAX_TTL) > 0) {
      throw new IllegalArgumentException(
          "ttl "
              + Durations.format(ttl)
              + " is longer than the longest the Redis provider grants, "
              + MAX_TTL_DAYS
              + "d");
    }
    return ttl;
  }
}
