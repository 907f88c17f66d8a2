package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When a held lease's next renewal is due (two thirds of its TTL left, sooner after a failure),
 * whether one is in flight and since when, and whether its deadline has been handed to the keeper
 * to check at the deadline itself.
 */
final class RenewalSchedule {
  private static final VarHandle RENEWING =
      FieldHandles.of(MethodHandles.lookup(), "renewing", boolean.class);

  // Whether a renewal is in flight (a field, not an AtomicBoolean: a schedule is made per lease).
  private volatile boolean renewing;
  private volatile long startedAt;
  private volatile long nextRenewal;
  private volatile long deadlineCheck;

  RenewalSchedule(LeaseGrant grant) {
    this.nextRenewal = dueAfter(grant);
  }

  /** Renewal is due when two thirds of the TTL are left: a third of the TTL after a fresh grant. */
  private static long dueAfter(LeaseGrant grant) {
    return grant.deadlineNanos() - grant.ttl().toNanos() / 3 * 2;
  }

  /** Starts a renewal when one is due and none is in flight; {@code true} when it started. */
  boolean start(long now) {
    if (now - nextRenewal >= 0 && RENEWING.compareAndSet(this, false, true)) {
      startedAt = now;
      return true;
    }
    return false;
  }

  /** Whether a renewal falls due within {@code window} nanoseconds from now. */
  boolean dueWithin(long now, long window) {
    return now + window - nextRenewal >= 0 && !renewing;
  }

  /**
   * Starts a renewal due within {@code window} when none is in flight; {@code true} when it did.
   */
  boolean startWithin(long now, long window) {
    if (now + window - nextRenewal >= 0 && RENEWING.compareAndSet(this, false, true)) {
      startedAt = now;
      return true;
    }
    return false;
  }

  /** The renewal in flight ended, however it ended. */
  void finished() {
    renewing = false;
  }

  /** How long the renewal in flight has been waiting, in milliseconds; -1 when none is. */
  long inFlightMillis(long now) {
    return renewing ? TimeUnit.NANOSECONDS.toMillis(now - startedAt) : -1;
  }

  /** A renewal succeeded: the next is due when two thirds of the new grant's TTL are left. */
  void renewed(LeaseGrant grant) {
    nextRenewal = dueAfter(grant);
  }

  /**
   * A renewal failed: try again after a tenth of the TTL rather than a third of it later; the
   * deadline is watched meanwhile.
   */
  void retrySoon(long now, Duration ttl) {
    nextRenewal = now + Math.max(LeaseKeeper.TICK_NANOS, ttl.toNanos() / 10);
  }

  /**
   * Whether the deadline falls before the next sweep and has not been handed to the keeper yet, so
   * that it is checked at the deadline itself, not up to a tick after it.
   */
  boolean checkAtDeadline(long deadline, long now) {
    if (deadline - now < LeaseKeeper.TICK_NANOS && deadlineCheck != deadline) {
      deadlineCheck = deadline;
      return true;
    }
    return false;
  }
}
