package dev.locksmith.tcp.server;

import dev.locksmith.core.spi.LockIdText;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of the server's locks: granting with a fencing token, extending, detaching, ending
 * (release, expiry, disconnect) and passing a freed lock to the next waiter of its {@link
 * WaitQueues}. Core thread only; time is {@link System#nanoTime()}.
 *
 * <p>One timer, that of {@link LeaseExpiry}, serves every lease; a lease found past its end when
 * its lock is looked up is ended then, before the timer gets to it.
 */
final class Leases {
  private static final Logger LOG = LoggerFactory.getLogger(Leases.class);

  private final LockIndex index;
  private final WaitQueues waits;
  private final LeaseExpiry expiry;
  private final FencingSequence fencing;
  private final LeaseHorizon horizon;
  private final ServerMetrics metrics;
  private final int maxDetached;
  private int detachedCount;
  // When the last lease released at a close its holder may not have heard of would have ended.
  private long unheardEndNanos;
  private boolean anyUnheard;

  Leases(
      LockIndex index,
      WaitQueues waits,
      FencingSequence fencing,
      LeaseHorizon horizon,
      ScheduledExecutorService core,
      ServerMetrics metrics,
      int maxDetached) {
    this.index = index;
    this.waits = waits;
    this.fencing = fencing;
    this.horizon = horizon;
    this.metrics = metrics;
    this.maxDetached = maxDetached;
    this.expiry = new LeaseExpiry(core, this::expire);
  }

  /**
   * The entry of a lock after ending its lease if that is due; null when the lock is neither held
   * nor waited for.
   */
  @Nullable LockEntry current(String lockId, long now) {
    LockEntry entry = index.get(lockId);
    if (entry != null && entry.held && now - entry.expiresAt >= 0) {
      expire(entry, now);
      if (!entry.held && !entry.hasWaiters()) {
        return null;
      }
    }
    return entry;
  }

  /** The live lease of {@code lockId} if {@code session} holds it with {@code token}, else null. */
  @Nullable LockEntry owned(Session session, String lockId, String token, long now) {
    LockEntry entry = current(lockId, now);
    if (entry == null || !entry.held || entry.holder != session || !entry.tokenIs(token)) {
      return null;
    }
    return entry;
  }

  /** Grants a lock that is neither held nor waited for. */
  void grantFree(String lockId, Session session, Request.Acquire a, String token, long now) {
    LockEntry entry = new LockEntry(lockId);
    index.add(entry);
    grant(entry, session, a, token, now, false, 0);
    index.removeIfIdle(entry);
  }

  /**
   * Gives the lock to {@code session}; sends the grant, or an error when no fencing token can be
   * had (the lock stays free then).
   *
   * @param handoff whether the lock passes from a holder to a waiter freed at {@code freedAt}
   */
  private void grant(
      LockEntry entry,
      Session session,
      Request.Acquire a,
      String token,
      long now,
      boolean handoff,
      long freedAt) {
    if (fencing.isClosed()) {
      session.send(a.id() + " ERR SHUTTING_DOWN the server is stopping");
      return;
    }
    if (!covered(session, a.id(), a.ttlMillis(), "")) {
      return;
    }
    long fencingToken;
    try {
      fencingToken = fencing.next();
    } catch (UncheckedIOException e) {
      LOG.error(
          "Cannot grant {}: {}", LockIdText.quoted(entry.lockId), e.getMessage(), e.getCause());
      session.send(a.id() + " ERR STORAGE cannot persist fencing tokens");
      return;
    }
    take(entry, session, token, a.owner(), fencingToken, a.ttlMillis(), now);
    String line = a.id() + " OK " + token + " " + fencingToken + " " + a.ttlMillis();
    if (handoff) {
      session.send(line, flushed -> metrics.handoff.record(flushed - freedAt));
    } else {
      session.send(line);
    }
  }

  /**
   * Grants every lock of an ACQUIRE-ALL whose locks were all found neither held nor waited for,
   * with a fencing token each, and sends the one OK; or sends an error when the fencing tokens
   * cannot be had, and then grants none.
   *
   * @param tokens the owner token of each lock, in request order
   */
  void grantAll(Session session, Request.AcquireAll a, String[] tokens, long now) {
    if (fencing.isClosed()) {
      session.send(a.id() + " ERR SHUTTING_DOWN the server is stopping");
      return;
    }
    List<Request.AcquireAll.Part> locks = a.locks();
    long[] fencingTokens = new long[locks.size()];
    if (!covered(session, a.id(), a.ttlMillis(), "; no lock was taken")) {
      return;
    }
    try {
      for (int i = 0; i < fencingTokens.length; i++) {
        fencingTokens[i] = fencing.next();
      }
    } catch (UncheckedIOException e) {
      // Tokens drawn before the failure are skipped, never given: the sequence only increases.
      LOG.error("Cannot grant {} locks: {}", locks.size(), e.getMessage(), e.getCause());
      session.send(a.id() + " ERR STORAGE cannot persist fencing tokens; no lock was taken");
      return;
    }
    StringBuilder line = new StringBuilder(32 + 48 * fencingTokens.length);
    line.append(a.id()).append(" OK ").append(fencingTokens.length);
    for (int i = 0; i < fencingTokens.length; i++) {
      LockEntry entry = new LockEntry(locks.get(i).lockId());
      index.add(entry);
      take(entry, session, tokens[i], a.owner(), fencingTokens[i], a.ttlMillis(), now);
      line.append(' ').append(tokens[i]).append(' ').append(fencingTokens[i]);
    }
    session.send(line.append(' ').append(a.ttlMillis()).toString());
  }

  /** Makes {@code session} the holder of a lock that has none. */
  private void take(
      LockEntry entry,
      Session session,
      String token,
      String owner,
      long fencingToken,
      long ttlMillis,
      long now) {
    entry.held = true;
    entry.detached = false;
    entry.holder = session;
    entry.setToken(token, session);
    entry.owner = owner;
    entry.fencingToken = fencingToken;
    entry.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
    session.link(entry);
    expiry.add(entry);
    metrics.held.incrementAndGet();
    metrics.grants.increment();
  }

  /**
   * Moves the lease's end to {@code ttlMillis} from now; the caller has made sure the lease horizon
   * {@linkplain #covered covers} it.
   */
  void extend(LockEntry entry, long ttlMillis, long now) {
    entry.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
    expiry.changed(entry);
  }

  /**
   * Detaches the lease from its connection, unless it already is; false when the server already
   * keeps the maximum of detached leases (the lease is unchanged then).
   */
  boolean detach(LockEntry entry, Session session) {
    if (entry.detached) {
      return true;
    }
    if (detachedCount >= maxDetached) {
      return false;
    }
    session.unlink(entry);
    entry.detached = true;
    session.link(entry);
    detachedCount++;
    metrics.detached.incrementAndGet();
    return true;
  }

  /** The most detached leases the server keeps. */
  int maxDetached() {
    return maxDetached;
  }

  /** Ends the lease of a held lock (release, expiry, disconnect); does not hand it on. */
  void dropHolder(LockEntry entry) {
    Session holder = entry.holder;
    if (holder != null) {
      holder.unlink(entry);
    }
    if (entry.detached) {
      detachedCount--;
      metrics.detached.decrementAndGet();
    }
    entry.held = false;
    entry.detached = false;
    entry.holder = null;
    entry.tokenHead = "";
    entry.owner = "";
    expiry.remove(entry);
    metrics.held.decrementAndGet();
  }

  /**
   * Grants a lock whose lease has just ended to the first waiter that can still take it, and
   * forgets the lock if no one can.
   *
   * @param freedAt when the lock was freed, the start of the hand-off
   */
  void passOn(LockEntry entry, long now, long freedAt) {
    Waiter next;
    while (!entry.held && (next = waits.next(entry, now)) != null) {
      grant(entry, next.session, next.request, next.ownerToken, now, true, freedAt);
    }
    index.removeIfIdle(entry);
  }

  /**
   * Makes sure the stored lease horizon covers a lease of {@code ttlMillis} from now; else answers
   * {@code ERR STORAGE} (or {@code ERR SHUTTING_DOWN} once the server is stopping) to request
   * {@code id} and returns false.
   */
  boolean covered(Session session, String id, long ttlMillis, String consequence) {
    if (fencing.isClosed()) {
      // The horizon was written for the last time with the sequence's close: a lease extended now
      // would outlast it.
      session.send(id + " ERR SHUTTING_DOWN the server is stopping" + consequence);
      return false;
    }
    try {
      horizon.cover(ttlMillis);
      return true;
    } catch (UncheckedIOException e) {
      LOG.error("Cannot grant or extend a lease: {}", e.getMessage(), e.getCause());
      session.send(id + " ERR STORAGE cannot persist the lease horizon" + consequence);
      return false;
    }
  }

  /**
   * Records that the lease of {@code entry}, about to be released at a close its holder did not
   * make (beyond {@code maxDetachedLeases}), may still be taken for held by that holder until its
   * end: the lease horizon keeps covering it, so that a restart waits for it as for a held one.
   */
  void releasingUnheard(LockEntry entry) {
    if (!anyUnheard || entry.expiresAt - unheardEndNanos > 0) {
      unheardEndNanos = entry.expiresAt;
      anyUnheard = true;
    }
  }

  /** Brings the stored lease horizon down to the leases still held, when that is worth a write. */
  void lowerHorizon() {
    horizon.lower(this::latestLeftMillis);
  }

  /**
   * How long the lease that ends last has left, rounded up to a millisecond; 0 when none. Leases
   * released unheard ({@link #releasingUnheard}) count until their end.
   */
  long latestLeftMillis() {
    long now = System.nanoTime();
    long held = expiry.latestLeftMillis(now);
    if (!anyUnheard) {
      return held;
    }
    long unheard = unheardEndNanos - now;
    if (unheard <= 0) {
      anyUnheard = false;
      return held;
    }
    return Math.max(held, (unheard + 999_999) / 1_000_000);
  }

  private void expire(LockEntry entry, long now) {
    long freedAt = entry.expiresAt;
    dropHolder(entry);
    metrics.expiries.increment();
    passOn(entry, now, freedAt);
  }
}
