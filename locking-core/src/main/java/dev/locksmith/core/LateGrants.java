package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's rule for a grant that arrives with little of its TTL left: a reply delayed by a
 * paused server or a slow network, or a grant pushed after a long wait whose conservative deadline
 * is anchored at the request's send time.
 *
 * <p>A grant is used as it is when at least half its TTL is left. A fresh grant has nearly all of
 * it, and the engine renews when two thirds are left, so a grant under half has spent more time in
 * flight than one renewal period: it is renewed before the method runs, and the renewal's own send
 * time anchors the new deadline. If that renewal is refused, fails or again comes back with under
 * half the TTL (the provider answers more slowly than the TTL allows), the grant is released and
 * the lock counts as not acquired. A late grant that arrives after a wait's timeout is not renewed
 * at all: that would be a second provider call after the deadline.
 */
final class LateGrants {
  private static final Logger LOG = LoggerFactory.getLogger(LateGrants.class);

  private LateGrants() {}

  /**
   * The grant, or its renewal when it came late.
   *
   * @param mayRenew whether a late grant may be renewed now; {@code false} after a wait's timeout
   * @return the usable grant
   * @throws Refused when a late grant could not be renewed in time; the caller then releases the
   *     grant ({@link #release}), and the exception's message says why
   */
  static LeaseGrant usable(
      LeaseGrant grant, ProviderCircuit circuit, Ticker ticker, boolean mayRenew) throws Refused {
    if (hasTime(grant, ticker.read())) {
      return grant;
    }
    Duration left = grant.timeLeftAt(ticker.read());
    if (!mayRenew) {
      throw refusal(grant, grantedWith(left, grant) + " after the wait had run out");
    }
    LockProvider provider = circuit.provider();
    String why;
    try {
      Optional<LeaseGrant> renewed =
          circuit.call(
              () -> provider.renew(grant, grant.ttl()), grant.lockId(), ProviderCircuit.RENEWED);
      if (renewed.isPresent() && hasTime(renewed.get(), ticker.read())) {
        return renewed.get();
      }
      why =
          renewed.isPresent()
              ? "its renewal also came back with under half the ttl left"
              : "the provider no longer held it when it was renewed";
    } catch (RuntimeException e) {
      why = "renewing it failed: " + Causes.oneLine(e);
    }
    throw refusal(grant, grantedWith(left, grant) + ", and " + why);
  }

  private static Refused refusal(LeaseGrant grant, String why) {
    LOG.debug("Lock {} not acquired: {}", LockIdText.quoted(grant.lockId()), why);
    return new Refused(why);
  }

  /**
   * A late grant that was not made usable; the message says why. Thrown on the rare path only, so
   * the common one allocates nothing for it; it carries no stack trace.
   */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String why) {
      super(why, null, false, false);
    }
  }

  private static String grantedWith(Duration left, LeaseGrant grant) {
    return "it was granted with "
        + left.toMillis()
        + " ms of its "
        + Durations.format(grant.ttl())
        + " ttl left";
  }

  private static boolean hasTime(LeaseGrant grant, long now) {
    return grant.deadlineNanos() - now >= grant.ttl().toNanos() / 2;
  }

  /**
   * Releases a grant that was not used, best effort; skipped while the provider is down (the grant
   * ends by its ttl).
   */
  static void release(LeaseGrant grant, ProviderCircuit circuit) {
    if (!circuit.isUp()) {
      return;
    }
    try {
      circuit.call(
          () -> circuit.provider().release(grant), grant.lockId(), ProviderCircuit.RELEASED);
    } catch (RuntimeException e) {
      LOG.debug(
          "Releasing the late grant of {} failed: {}",
          LockIdText.quoted(grant.lockId()),
          e.toString());
    }
  }

  /**
   * Sends the release of a grant that was not used, without waiting for its answer, best effort;
   * skipped while the provider is down (the grant ends by its ttl).
   */
  static void releaseAsync(LeaseGrant grant, ProviderCircuit circuit) {
    if (!circuit.isUp()) {
      return;
    }
    try {
      circuit
          .callAsync(
              () -> circuit.provider().releaseAsync(grant),
              grant.lockId(),
              ProviderCircuit.RELEASED)
          .whenComplete(
              (released, error) -> {
                if (error != null) {
                  LOG.debug(
                      "Releasing the late grant of {} failed: {}",
                      LockIdText.quoted(grant.lockId()),
                      Causes.unwrapCompletion(error).toString());
                }
              });
    } catch (RuntimeException e) {
      LOG.debug(
          "Releasing the late grant of {} failed: {}",
          LockIdText.quoted(grant.lockId()),
          e.toString());
    }
  }

  /** The error for a late grant that cannot be retried. */
  static LockProviderException refused(String lockId, @Nullable CharSequence refusal) {
    return new LockProviderException(
        "Lock "
            + LockIdText.quoted(lockId)
            + " was not acquired: "
            + refusal
            + "; the provider answers too slowly for this ttl, so use a longer ttl or check the"
            + " provider's latency");
  }
}
