package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Why a held lease was lost, in the words its holder and listeners are told, and the pause limit
 * that one of those reasons is measured against.
 */
final class LossReasons {
  /** The provider answered a renewal: it no longer holds the lease for this owner. */
  static final String GONE_AT_RENEWAL =
      "the provider no longer holds it for this owner (expired or taken over)";

  /** The provider answered the release: it no longer held the lease. */
  static final String GONE_AT_RELEASE =
      "it had already expired or been taken over when it was released";

  /** Its holder asked after releasing it. */
  static final String RELEASED = "it was released";

  private LossReasons() {}

  /**
   * The provider's pause limit ({@link LockProvider#pauseLimit}) in nanoseconds: {@link
   * Long#MAX_VALUE} when it names none, and only the ttl ends a lease.
   */
  static long pauseLimitNanos(LockProvider provider) {
    Duration limit = provider.pauseLimit().orElse(Durations.MAX);
    return limit.compareTo(Durations.MAX) >= 0 ? Long.MAX_VALUE : Math.max(0, limit.toNanos());
  }

  /**
   * The process stood still for {@code stoppedNanos}, longer than the provider's pause limit.
   *
   * @param provider the provider's description
   */
  static String stopped(long stoppedNanos, long pauseLimitNanos, String provider) {
    return "this process stood still for "
        + TimeUnit.NANOSECONDS.toMillis(stoppedNanos)
        + " ms (a pause such as a long GC or SIGSTOP), longer than the "
        + TimeUnit.NANOSECONDS.toMillis(pauseLimitNanos)
        + " ms after which "
        + provider
        + " may end its leases whatever their ttl";
  }

  /**
   * The lease's deadline passed without a confirmed renewal.
   *
   * @param renewalInFlightMillis how long a renewal had been waiting for an answer, or a negative
   *     number when none was in flight
   * @param provider the provider's description
   */
  static String deadline(LockOptions options, long renewalInFlightMillis, String provider) {
    if (!options.renew()) {
      return "its ttl of " + Durations.format(options.ttl()) + " ran out while still held";
    }
    if (renewalInFlightMillis >= 0) {
      return "its deadline passed while a renewal had been waiting "
          + renewalInFlightMillis
          + " ms for "
          + provider;
    }
    return "its deadline passed without a confirmed renewal";
  }
}
