package dev.locksmith.tcp;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases granted over one {@link ClientConnection}, as far as the client knows: recorded at
 * their grants and renewals, marked while their RELEASE is in flight, pruned once the server has
 * surely ended them, and, when the connection closes, those lost with it reported.
 */
final class ConnectionLeases {
  private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);

  /** Ended leases are pruned at most this often. */
  private static final long PRUNE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * A lease is pruned this long after the server has surely ended it: its ttl after the client last
   * learned it was granted or renewed.
   */
  private static final long PRUNE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * A lease recorded here.
   *
   * @param learnedNanos when the reply that granted or last renewed it arrived; the server granted
   *     or renewed it no later, so its ttl on the server ended no later than this plus the ttl
   * @param releasing a RELEASE of it is in flight: if the connection drops now, the lease is
   *     released with it, not lost
   * @param detached shortened to a minimum hold with HOLD: the server keeps it until its end
   *     whatever happens to the connection, so it is not lost when the connection closes
   * @param renewing how many renewals of it are in flight: the server may have renewed it already,
   *     however late their replies come, so it is not pruned meanwhile
   */
  private record Held(
      LeaseGrant lease, long learnedNanos, boolean releasing, boolean detached, int renewing) {
    boolean surelyEndedBy(long now) {
      return renewing == 0 && now - learnedNanos - lease.ttl().toNanos() > PRUNE_GRACE_NANOS;
    }

    Held releasing(boolean value) {
      return new Held(lease, learnedNanos, value, detached, renewing);
    }

    Held renewing(int delta) {
      return new Held(lease, learnedNanos, releasing, detached, renewing + delta);
    }
  }

  private final String description;
  private final BooleanSupplier open;
  private final Consumer<LeaseGrant> onLost;
  private final Map<String, Held> leases = new ConcurrentHashMap<>();
  private volatile long lastPruneNanos = System.nanoTime();

  /**
   * @param description the server as errors and logs name it
   * @param open whether the connection is open; no lease counts as held, nor is marked as being
   *     released, once it is not
   * @param onLost told of every lease lost with the connection
   */
  ConnectionLeases(String description, BooleanSupplier open, Consumer<LeaseGrant> onLost) {
    this.description = description;
    this.open = open;
    this.onLost = onLost;
  }

  /**
   * Records a lease granted over this connection, and now and then forgets leases the server has
   * surely ended long ago (shortened to a minimum hold, say, and never released).
   *
   * <p>Pruning goes by when the client last learned of each lease, not by its conservative
   * deadline: a grant pushed after a long wait has a deadline in the past but a full ttl on the
   * server. The lease recorded now is never pruned by this call.
   *
   * @param learnedNanos when the reply granting or renewing it arrived
   * @param detach whether the server detached it from the connection (HOLD); a lease once detached
   *     stays detached
   */
  void granted(LeaseGrant lease, long learnedNanos, boolean detach) {
    pruneNowAndThen();
    leases.merge(
        lease.ownerToken(),
        new Held(lease, learnedNanos, false, detach, 0),
        (old, fresh) ->
            new Held(
                lease, learnedNanos, false, old.detached() || fresh.detached(), old.renewing()));
  }

  /**
   * Marks a renewal of the lease as in flight, if this connection still holds it as far as the
   * client knows: until {@link #renewalEnded}, the lease is not pruned, however late the reply
   * comes (the server may have renewed it at once). Atomic with the prune.
   *
   * @return whether the lease was held and is now marked; when false, send no renewal
   */
  boolean startRenewal(String ownerToken, String lockId) {
    return mark(ownerToken, lockId, held -> held.renewing(1));
  }

  /**
   * Applies {@code marking} to the lease if this connection still holds it as far as the client
   * knows, atomically with the prune and {@link #endAll}.
   *
   * @return whether it was held and is now marked
   */
  private boolean mark(String ownerToken, String lockId, UnaryOperator<Held> marking) {
    boolean[] marked = {false};
    leases.computeIfPresent(
        ownerToken,
        (token, held) -> {
          if (!open.getAsBoolean() || !lockId.equals(held.lease().lockId())) {
            return held;
          }
          marked[0] = true;
          return marking.apply(held);
        });
    return marked[0];
  }

  /** Clears one mark of {@link #startRenewal}, once its reply was handled or will never come. */
  void renewalEnded(String ownerToken) {
    leases.computeIfPresent(
        ownerToken, (token, held) -> held.renewing() > 0 ? held.renewing(-1) : held);
  }

  /**
   * Records the renewal (RENEW or HOLD) of a lease recorded here, but never records it anew: a
   * lease forgotten while its renewal was in flight (released meanwhile, its reply handled first)
   * stays forgotten. A lease whose RELEASE is in flight stays marked as being released.
   *
   * @param learnedNanos when the reply renewing it arrived
   * @param detach whether the server detached it from the connection (HOLD); a lease once detached
   *     stays detached
   */
  void renewed(LeaseGrant lease, long learnedNanos, boolean detach) {
    pruneNowAndThen();
    leases.computeIfPresent(
        lease.ownerToken(),
        (token, old) -> {
          boolean sameLease =
              old.lease().lockId().equals(lease.lockId())
                  && old.lease().fencingToken() == lease.fencingToken();
          if (!sameLease) {
            return old;
          }
          return new Held(
              lease, learnedNanos, old.releasing(), old.detached() || detach, old.renewing());
        });
  }

  /** Forgets, at most once per {@link #PRUNE_INTERVAL_NANOS}, the leases surely ended by now. */
  private void pruneNowAndThen() {
    long now = System.nanoTime();
    if (now - lastPruneNanos >= PRUNE_INTERVAL_NANOS) {
      lastPruneNanos = now;
      leases.values().removeIf(held -> held.surelyEndedBy(now));
    }
  }

  /**
   * Records the leases of one ACQUIRE-ALL granted over this connection, as {@link #granted} does.
   *
   * @throws ConnectionLostException when the connection has closed meanwhile: the server released
   *     them with it
   */
  void grantedAll(List<LeaseGrant> granted, long learnedNanos, String what) {
    for (LeaseGrant lease : granted) {
      granted(lease, learnedNanos, false);
    }
    if (!open.getAsBoolean()) {
      throw new ConnectionLostException(
          "connection to "
              + description
              + " lost just after "
              + what
              + " was granted;"
              + " the server released the locks");
    }
  }

  /** Whether this connection still holds the lease, as far as the client knows. */
  boolean holds(String ownerToken, String lockId) {
    Held held = leases.get(ownerToken);
    return open.getAsBoolean() && held != null && lockId.equals(held.lease().lockId());
  }

  /**
   * Marks the lease as being released, if this connection still holds it as far as the client
   * knows; from then on a dropped connection releases it rather than losing it, and it is not
   * reported lost. Atomic with {@link #endAll}: either the mark is seen there or this returns
   * false.
   *
   * @return whether the lease was held and is now marked; when false, send no RELEASE
   */
  boolean startRelease(String ownerToken, String lockId) {
    return mark(ownerToken, lockId, held -> held.releasing(true));
  }

  /** Clears the mark of {@link #startRelease} after a RELEASE whose outcome is unknown. */
  void releaseUnknown(String ownerToken) {
    leases.computeIfPresent(ownerToken, (token, held) -> held.releasing(false));
  }

  /** How many leases are recorded (for tests). */
  int count() {
    return leases.size();
  }

  void forget(String ownerToken) {
    leases.remove(ownerToken);
  }

  /**
   * Forgets every lease, once the connection has closed, and reports those lost with it: neither
   * being released (a lease whose RELEASE is in flight goes with the connection) nor expired nor
   * detached (leases shortened to a minimum hold stay held on the server until their end).
   *
   * @param deliberate the application closed the provider: the leases lost are logged at INFO, not
   *     as a failure
   */
  void endAll(boolean deliberate) {
    // Removed one by one, atomically with startRelease.
    List<LeaseGrant> lost = new ArrayList<>();
    int detached = 0;
    for (String ownerToken : leases.keySet()) {
      Held held = leases.remove(ownerToken);
      if (held == null || held.releasing() || held.lease().expired()) {
        continue;
      }
      if (held.detached()) {
        detached++;
      } else {
        lost.add(held.lease());
      }
    }
    if (deliberate) {
      if (!lost.isEmpty() || detached > 0) {
        LOG.info(
            "Closed the connection to {}: {} lease(s) of running work ended with it (the server"
                + " released them); {} lease(s) kept for their minimum hold stay held until it ends",
            description,
            lost.size(),
            detached);
      }
    } else if (!lost.isEmpty()) {
      LOG.warn(
          "Connection to {} closed; {} lease(s) held over it are lost (the server released them)",
          description,
          lost.size());
    }
    for (LeaseGrant lease : lost) {
      try {
        onLost.accept(lease);
      } catch (RuntimeException e) {
        LOG.warn("Reporting the lost lease on {} failed", LockIdText.quoted(lease.lockId()), e);
      }
    }
  }
}
