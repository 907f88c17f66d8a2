package dev.locksmith.tcp.server;

import dev.locksmith.core.spi.OwnerTokens;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's leases and waiters. Every method runs on the single core thread, which also runs the
 * expiry and wait timers, so the table needs no locks. Time is {@link System#nanoTime()}.
 *
 * <p>A lock's entry exists only while the lock is held or waited for. When a holder goes (release,
 * expiry, disconnect) the first waiter that is still connected and whose wait has not run out gets
 * the lock and its grant is pushed; a waiter past its deadline is answered TIMEOUT instead.
 *
 * <p>A lease normally belongs to the connection that acquired it and ends when that connection
 * closes. A lease shortened with {@code HOLD} (the client's work is done but a minimum hold time is
 * left) is detached: it stays held until its end whatever happens to the connection, which may
 * still renew or release it while it lives.
 *
 * <p>Memory: one {@link LockEntry} per held or waited-for lock, a slot in the {@link LockIndex} and
 * one in the {@link ExpiryHeap} of {@link LeaseExpiry}, whose one timer serves every lease.
 */
final class LockTable {
  private static final Logger LOG = LoggerFactory.getLogger(LockTable.class);

  private final LockIndex index = new LockIndex();
  private final LeaseExpiry expiry;
  private final FencingSequence fencing;
  private final ScheduledExecutorService core;
  private final ServerMetrics metrics;
  private final int maxWaitersPerLock;
  private final int maxPerSession;
  private final int maxDetached;
  private int detachedCount;

  LockTable(
      FencingSequence fencing,
      ScheduledExecutorService core,
      ServerMetrics metrics,
      int maxWaitersPerLock,
      int maxPerSession,
      int maxDetached) {
    this.fencing = fencing;
    this.core = core;
    this.metrics = metrics;
    this.maxWaitersPerLock = maxWaitersPerLock;
    this.maxPerSession = maxPerSession;
    this.maxDetached = maxDetached;
    this.expiry = new LeaseExpiry(core, this::expire);
  }

  /** Number of locks with a holder or waiters. */
  int size() {
    return index.size();
  }

  /**
   * Answers a lock request.
   *
   * @param receivedNanos when the request line was read, the start of a hand-off it causes
   */
  void handle(Session session, Request request, long receivedNanos) {
    if (session.closed) {
      return;
    }
    long now = System.nanoTime();
    if (request instanceof Request.Acquire a) {
      acquire(session, a, now);
    } else if (request instanceof Request.Renew r) {
      renew(session, r, now);
    } else if (request instanceof Request.Hold h) {
      hold(session, h, now);
    } else if (request instanceof Request.Release r) {
      release(session, r, now, receivedNanos);
    } else if (request instanceof Request.Status s) {
      status(session, s, now);
    } else if (request instanceof Request.Cancel c) {
      cancel(session, c);
    } else if (request instanceof Request.Stats) {
      session.send(request.id() + " STATS " + metrics.statsFields());
    } else {
      throw new IllegalArgumentException("not a lock request: " + request);
    }
  }

  private void acquire(Session session, Request.Acquire a, long now) {
    if (session.waits.containsKey(a.id())) {
      session.send(a.id() + " ERR DUPLICATE_ID request id " + a.id() + " is already waiting");
      return;
    }
    if (session.waits.size() + session.attachedCount >= maxPerSession) {
      session.send(
          a.id()
              + " ERR LIMIT this connection already holds or waits for "
              + maxPerSession
              + " locks");
      return;
    }
    String token = a.ownerToken() != null ? a.ownerToken() : OwnerTokens.newToken();
    LockEntry entry = current(a.lockId(), now);
    if (entry == null) {
      entry = new LockEntry(a.lockId());
      index.add(entry);
      grant(entry, session, a, token, now, false, 0);
      removeIfIdle(entry);
    } else if (a.waitMillis() == 0) {
      session.send(a.id() + " BUSY");
    } else if (entry.waiterCount() >= maxWaitersPerLock) {
      session.send(
          a.id() + " ERR LIMIT lock already has the maximum of " + maxWaitersPerLock + " waiters");
    } else {
      Waiter waiter =
          new Waiter(session, a, token, now + TimeUnit.MILLISECONDS.toNanos(a.waitMillis()));
      ArrayDeque<Waiter> queue = entry.waiters;
      if (queue == null) {
        queue = new ArrayDeque<>(4);
        entry.waiters = queue;
      }
      queue.add(waiter);
      session.waits.put(a.id(), waiter);
      metrics.waiters.incrementAndGet();
      waiter.timer = core.schedule(() -> waitRanOut(waiter), a.waitMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The entry of a lock after ending its lease if that is due; null when the lock is neither held
   * nor waited for.
   */
  private @Nullable LockEntry current(String lockId, long now) {
    LockEntry entry = index.get(lockId);
    if (entry != null && entry.held && now - entry.expiresAt >= 0) {
      expire(entry, now);
      if (!entry.held && !entry.hasWaiters()) {
        return null;
      }
    }
    return entry;
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
    long fencingToken;
    try {
      fencingToken = fencing.next();
    } catch (UncheckedIOException e) {
      LOG.error("Cannot grant {}: {}", entry.lockId, e.getMessage(), e.getCause());
      session.send(a.id() + " ERR STORAGE cannot persist fencing tokens");
      return;
    }
    entry.held = true;
    entry.detached = false;
    entry.holder = session;
    entry.setToken(token, session);
    entry.owner = a.owner();
    entry.fencingToken = fencingToken;
    entry.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(a.ttlMillis());
    session.link(entry);
    expiry.add(entry);
    metrics.held.incrementAndGet();
    metrics.grants.increment();
    String line = a.id() + " OK " + token + " " + fencingToken + " " + a.ttlMillis();
    if (handoff) {
      session.send(line, flushed -> metrics.handoff.record(flushed - freedAt));
    } else {
      session.send(line);
    }
  }

  /** Ends the lease of a held lock (release, expiry, disconnect); does not hand it on. */
  private void dropHolder(LockEntry entry) {
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

  private void expire(LockEntry entry, long now) {
    long freedAt = entry.expiresAt;
    dropHolder(entry);
    metrics.expiries.increment();
    handOff(entry, now, freedAt);
    removeIfIdle(entry);
  }

  /** Grants the lock to the first waiter that can still take it. */
  private void handOff(LockEntry entry, long now, long freedAt) {
    ArrayDeque<Waiter> queue = entry.waiters;
    if (queue == null) {
      return;
    }
    Waiter next;
    while (!entry.held && (next = queue.poll()) != null) {
      finish(next);
      if (!next.session.live()) {
        continue;
      }
      if (now - next.deadline >= 0) {
        next.session.send(next.request.id() + " TIMEOUT");
      } else {
        grant(entry, next.session, next.request, next.ownerToken, now, true, freedAt);
      }
    }
    if (queue.isEmpty()) {
      entry.waiters = null;
    }
  }

  private void finish(Waiter waiter) {
    waiter.session.waits.remove(waiter.request.id(), waiter);
    metrics.waiters.decrementAndGet();
    ScheduledFuture<?> timer = waiter.timer;
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private void waitRanOut(Waiter waiter) {
    LockEntry entry = index.get(waiter.request.lockId());
    ArrayDeque<Waiter> queue = entry == null ? null : entry.waiters;
    if (queue == null || !queue.remove(waiter)) {
      return;
    }
    if (queue.isEmpty()) {
      entry.waiters = null;
    }
    finish(waiter);
    if (waiter.session.live()) {
      waiter.session.send(waiter.request.id() + " TIMEOUT");
    }
    removeIfIdle(entry);
  }

  private void cancel(Session session, Request.Cancel c) {
    Waiter waiter = session.waits.get(c.acquireId());
    if (waiter == null) {
      session.send(c.id() + " NOTWAITING");
      return;
    }
    withdraw(waiter);
    session.send(waiter.request.id() + " CANCELLED");
    session.send(c.id() + " OK");
  }

  /** Takes a waiter out of its lock's queue. */
  private void withdraw(Waiter waiter) {
    LockEntry entry = index.get(waiter.request.lockId());
    finish(waiter);
    if (entry != null && entry.waiters != null) {
      entry.waiters.remove(waiter);
      if (entry.waiters.isEmpty()) {
        entry.waiters = null;
      }
      removeIfIdle(entry);
    }
  }

  /** The live lease of {@code lockId} if {@code session} holds it with {@code token}, else null. */
  private @Nullable LockEntry owned(Session session, String lockId, String token, long now) {
    LockEntry entry = current(lockId, now);
    if (entry == null || !entry.held || entry.holder != session || !entry.tokenIs(token)) {
      return null;
    }
    return entry;
  }

  private void renew(Session session, Request.Renew r, long now) {
    LockEntry entry = owned(session, r.lockId(), r.ownerToken(), now);
    if (entry == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    extend(entry, r.ttlMillis(), now);
    session.send(r.id() + " OK " + r.ownerToken() + " " + entry.fencingToken + " " + r.ttlMillis());
  }

  private void hold(Session session, Request.Hold h, long now) {
    LockEntry entry = owned(session, h.lockId(), h.ownerToken(), now);
    if (entry == null) {
      session.send(h.id() + " NOTHELD");
      return;
    }
    if (!entry.detached) {
      if (detachedCount >= maxDetached) {
        session.send(
            h.id()
                + " ERR LIMIT the server already keeps "
                + maxDetached
                + " detached leases; the lease is unchanged");
        return;
      }
      session.unlink(entry);
      entry.detached = true;
      session.link(entry);
      detachedCount++;
      metrics.detached.incrementAndGet();
    }
    extend(entry, h.ttlMillis(), now);
    session.send(h.id() + " OK " + h.ownerToken() + " " + entry.fencingToken + " " + h.ttlMillis());
  }

  private void extend(LockEntry entry, long ttlMillis, long now) {
    entry.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
    expiry.changed(entry);
  }

  private void release(Session session, Request.Release r, long now, long receivedNanos) {
    LockEntry entry = owned(session, r.lockId(), r.ownerToken(), now);
    if (entry == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    dropHolder(entry);
    metrics.releases.increment();
    session.send(r.id() + " OK");
    handOff(entry, now, receivedNanos);
    removeIfIdle(entry);
  }

  private void status(Session session, Request.Status s, long now) {
    LockEntry entry = current(s.lockId(), now);
    if (entry == null) {
      session.send(s.id() + " FREE 0");
    } else if (!entry.held) {
      session.send(s.id() + " FREE " + entry.waiterCount());
    } else {
      long left = TimeUnit.NANOSECONDS.toMillis(entry.expiresAt - now);
      session.send(
          s.id()
              + " HELD "
              + entry.fencingToken
              + " "
              + Math.max(left, 0)
              + " "
              + entry.waiterCount()
              + " "
              + (entry.owner.isEmpty() ? "-" : entry.owner));
    }
  }

  /**
   * Releases a closed connection's attached leases at once and withdraws its waits; its detached
   * leases stay held until their end.
   *
   * @param closedNanos when the close was seen, the start of the hand-offs it causes
   */
  void sessionClosed(Session session, long closedNanos) {
    session.closed = true;
    long now = System.nanoTime();
    for (Waiter waiter : new ArrayList<>(session.waits.values())) {
      withdraw(waiter);
    }
    int released = 0;
    LockEntry entry;
    while ((entry = session.attached) != null) {
      dropHolder(entry);
      metrics.disconnectReleases.increment();
      released++;
      handOff(entry, now, closedNanos);
      removeIfIdle(entry);
    }
    int detached = 0;
    for (entry = session.detached; entry != null; ) {
      LockEntry next = entry.next;
      entry.prev = null;
      entry.next = null;
      entry.holder = null;
      detached++;
      entry = next;
    }
    session.detached = null;
    if (released > 0 || detached > 0) {
      LOG.debug(
          "Connection {} closed; released {} lease(s), {} detached lease(s) stay until their end",
          session,
          released,
          detached);
    }
  }

  /**
   * The client shut down its sending side, and every request it sent before has been answered, but
   * for waiting ACQUIREs: answers those CANCELLED (a lease granted now could only be released at
   * once, with the connection) and closes the connection once the replies are sent.
   */
  void inputEnded(Session session) {
    for (Waiter waiter : new ArrayList<>(session.waits.values())) {
      withdraw(waiter);
      session.send(waiter.request.id() + " CANCELLED");
    }
    session.closeAfterFlush();
  }

  private void removeIfIdle(LockEntry entry) {
    if (!entry.held && !entry.hasWaiters()) {
      index.remove(entry);
    }
  }
}
