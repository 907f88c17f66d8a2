package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A lease the engine holds: renewed by the {@link LeaseKeeper}, released once. */
final class ActiveLease implements Lease {
  private static final Logger LOG = LoggerFactory.getLogger(ActiveLease.class);

  private final LockOptions options;
  private final String providerName;
  private final LockProvider provider;
  private final Listeners listeners;
  private final long acquiredAt;
  private final AtomicReference<@Nullable String> lostReason = new AtomicReference<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean renewing = new AtomicBoolean();
  // Serialises the provider calls of renewal and release, so a late renewal cannot undo a release
  // or a minimum-hold shortening.
  private final ReentrantLock providerCalls = new ReentrantLock();
  private volatile LeaseGrant grant;
  private volatile @Nullable LeaseKeeper keeper;
  private volatile long nextRenewal;

  ActiveLease(
      LockOptions options,
      String providerName,
      LockProvider provider,
      Listeners listeners,
      LeaseGrant grant,
      long acquiredAt) {
    this.options = options;
    this.providerName = providerName;
    this.provider = provider;
    this.listeners = listeners;
    this.grant = grant;
    this.acquiredAt = acquiredAt;
  }

  void keepWith(LeaseKeeper leaseKeeper) {
    nextRenewal = acquiredAt + options.ttl().toNanos() / 3;
    keeper = leaseKeeper;
    leaseKeeper.watch(this);
  }

  /**
   * Called by the keeper on every tick: starts a renewal when a third of the TTL has passed, or
   * reports an unrenewed lease lost when its TTL ran out.
   *
   * @return whether the keeper should go on keeping this lease
   */
  boolean keep(long now, LeaseKeeper leaseKeeper) {
    if (closed.get() || lostReason.get() != null) {
      return false;
    }
    if (!options.renew()) {
      if (grant.expired()) {
        expireIfStillHeld();
        return false;
      }
      return true;
    }
    if (now - nextRenewal >= 0 && renewing.compareAndSet(false, true)) {
      leaseKeeper.renewLater(
          () -> {
            try {
              renewNow();
            } finally {
              nextRenewal = System.nanoTime() + options.ttl().toNanos() / 3;
              renewing.set(false);
            }
          });
    }
    return true;
  }

  String providerDescription() {
    return provider.description();
  }

  LockOptions options() {
    return options;
  }

  LockProvider provider() {
    return provider;
  }

  boolean isClosed() {
    return closed.get();
  }

  LockEvent event() {
    return new LockEvent(options.name(), options.lockId(), providerName, grant.fencingToken());
  }

  @Override
  public String name() {
    return options.name();
  }

  @Override
  public @Nullable String key() {
    return options.key();
  }

  @Override
  public String lockId() {
    return options.lockId();
  }

  @Override
  public long fencingToken() {
    return grant.fencingToken();
  }

  @Override
  public String ownerToken() {
    return grant.ownerToken();
  }

  @Override
  public Duration timeLeft() {
    return isValid() ? grant.timeLeft() : Duration.ZERO;
  }

  @Override
  public boolean isValid() {
    return lostReason.get() == null && !closed.get() && !grant.expired();
  }

  @Override
  public void checkValid() {
    String reason = lostReason.get();
    if (reason != null) {
      throw new LockLostException(lockId(), reason);
    }
    if (closed.get()) {
      throw new LockLostException(lockId(), "it was released");
    }
    if (grant.expired()) {
      throw new LockLostException(lockId(), "its deadline passed without a renewal");
    }
  }

  /** Renews once, unless the lease was closed or lost meanwhile. */
  void renewNow() {
    providerCalls.lock();
    try {
      if (!closed.get() && lostReason.get() == null) {
        renewHeld();
      }
    } finally {
      providerCalls.unlock();
    }
  }

  private void renewHeld() {
    LeaseGrant current = grant;
    if (current.expired()) {
      markLost("its deadline passed before it could be renewed");
      return;
    }
    try {
      Optional<LeaseGrant> renewed = provider.renew(current, options.ttl());
      if (renewed.isPresent()) {
        grant = renewed.get();
      } else {
        markLost("the provider no longer holds it for this owner (expired or taken over)");
      }
    } catch (RuntimeException e) {
      listeners.error(event(), e);
      if (current.expired()) {
        markLost("renewal kept failing until its deadline passed: " + e.getMessage());
      } else {
        LOG.warn(
            "Renewing lock '{}' failed, retrying while {} ms remain: {}",
            lockId(),
            current.timeLeft().toMillis(),
            e.toString());
      }
    }
  }

  /** For a lease that is not renewed: reports it lost when its TTL ran out while still held. */
  void expireIfStillHeld() {
    if (!closed.get()) {
      markLost("its ttl of " + Durations.format(options.ttl()) + " ran out while still held");
    }
  }

  void markLost(String reason) {
    if (lostReason.compareAndSet(null, reason)) {
      cancelWatch();
      listeners.lost(event(), reason);
    }
  }

  private void cancelWatch() {
    LeaseKeeper k = keeper;
    if (k != null) {
      k.unwatch(this);
    }
  }

  /**
   * Releases the lease, or with a minimum hold time left, shortens it to end then. Never throws: a
   * failing release is told to listeners and logged.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    HeldLeases.remove(this);
    cancelWatch();
    long heldNanos = System.nanoTime() - acquiredAt;
    Duration held = Duration.ofNanos(heldNanos);
    providerCalls.lock();
    try {
      long holdLeft = options.minHold().toNanos() - heldNanos;
      boolean stillHeld;
      if (holdLeft >= 1_000_000 && lostReason.get() == null) {
        stillHeld = provider.renew(grant, Duration.ofNanos(holdLeft)).isPresent();
      } else {
        stillHeld = provider.release(grant);
      }
      if (!stillHeld) {
        markLost("it had already expired or been taken over when it was released");
      }
    } catch (RuntimeException e) {
      listeners.error(event(), e);
      LOG.warn("Releasing lock '{}' failed; it will expire by its ttl", lockId(), e);
    } finally {
      providerCalls.unlock();
    }
    listeners.released(event(), held);
  }

  @Override
  public String toString() {
    return "Lease[" + lockId() + ", fencing token " + fencingToken() + "]";
  }
}
