package dev.locksmith.tcp.server;

import dev.locksmith.core.spi.OwnerTokens;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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
 *
 * <p>This class answers the requests; the leases are kept by {@link Leases}, the waiters by {@link
 * WaitQueues}, and {@link SessionEnds} ends a closed connection's.
 */
final class LockTable {
  private final LockIndex index = new LockIndex();
  private final WaitQueues waits;
  private final Leases leases;
  private final RestartWait restartWait;
  private final SessionEnds ends;
  private final ServerMetrics metrics;
  private final int maxPerSession;

  /**
   * @param restartWaitMillis how long the leases of the server's run before may still last: until
   *     then every lock counts as held ({@link RestartWait})
   */
  LockTable(
      FencingSequence fencing,
      LeaseHorizon horizon,
      long restartWaitMillis,
      ScheduledExecutorService core,
      ServerMetrics metrics,
      int maxWaitersPerLock,
      int maxPerSession,
      int maxDetached) {
    this.metrics = metrics;
    this.maxPerSession = maxPerSession;
    this.waits = new WaitQueues(index, core, metrics, maxWaitersPerLock);
    this.leases = new Leases(index, waits, fencing, horizon, core, metrics, maxDetached);
    this.restartWait = new RestartWait(index, waits, leases, core, metrics, restartWaitMillis);
    this.ends = new SessionEnds(waits, leases, metrics);
  }

  /** Brings the stored lease horizon down to the leases still held, when that is worth a write. */
  void lowerHorizon() {
    leases.lowerHorizon();
  }

  /** How long the lease that ends last has left, rounded up to a millisecond; 0 when none. */
  long latestLeftMillis() {
    return leases.latestLeftMillis();
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
    if (!session.live()
        && (request instanceof Request.Acquire || request instanceof Request.AcquireAll)) {
      // The connection is gone, or the server is closing it (a line or idle timeout), and its
      // close is queued behind this: a grant could never reach the client, and as a lease of a
      // connection the client did not end it would stay until its end. Releases and renewals
      // read before the close still apply.
      return;
    }
    long now = System.nanoTime();
    if (request instanceof Request.Acquire a) {
      acquire(session, a, now);
    } else if (request instanceof Request.AcquireAll a) {
      acquireAll(session, a, now);
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
    LockEntry entry = leases.current(a.lockId(), now);
    if (entry == null && restartWait.holds(now)) {
      if (a.waitMillis() == 0) {
        session.send(a.id() + " BUSY");
      } else {
        restartWait.enqueue(session, a, token, now);
      }
    } else if (entry == null) {
      leases.grantFree(a.lockId(), session, a, token, now);
    } else if (a.waitMillis() == 0) {
      session.send(a.id() + " BUSY");
    } else {
      waits.enqueue(entry, session, a, token, now);
    }
  }

  /**
   * Takes every lock of the request in this one step of the core thread, or none: a lock that is
   * held or has waiters queued is busy, as for an ACQUIRE with wait 0, and the first busy one is
   * named in the BUSY reply.
   */
  private void acquireAll(Session session, Request.AcquireAll a, long now) {
    if (session.waits.containsKey(a.id())) {
      session.send(a.id() + " ERR DUPLICATE_ID request id " + a.id() + " is already waiting");
      return;
    }
    int n = a.locks().size();
    int used = session.waits.size() + session.attachedCount;
    if (used + n > maxPerSession) {
      session.send(
          a.id()
              + " ERR LIMIT this connection holds or waits for "
              + used
              + " locks; "
              + n
              + " more would pass the limit of "
              + maxPerSession);
      return;
    }
    for (Request.AcquireAll.Part part : a.locks()) {
      if (leases.current(part.lockId(), now) != null || restartWait.holds(now)) {
        session.send(a.id() + " BUSY " + part.wireId());
        return;
      }
    }
    String[] tokens = new String[n];
    for (int i = 0; i < n; i++) {
      String token = a.locks().get(i).ownerToken();
      tokens[i] = token != null ? token : OwnerTokens.newToken();
    }
    leases.grantAll(session, a, tokens, now);
  }

  private void cancel(Session session, Request.Cancel c) {
    Waiter waiter = session.waits.get(c.acquireId());
    if (waiter == null) {
      session.send(c.id() + " NOTWAITING");
      return;
    }
    waits.withdraw(waiter);
    session.send(waiter.request.id() + " CANCELLED");
    session.send(c.id() + " OK");
  }

  private void renew(Session session, Request.Renew r, long now) {
    LockEntry entry = leases.owned(session, r.lockId(), r.ownerToken(), now);
    if (entry == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    if (!leases.covered(session, r.id(), r.ttlMillis(), "; the lease is unchanged")) {
      return;
    }
    leases.extend(entry, r.ttlMillis(), now);
    session.send(r.id() + " OK " + r.ownerToken() + " " + entry.fencingToken + " " + r.ttlMillis());
  }

  private void hold(Session session, Request.Hold h, long now) {
    LockEntry entry = leases.owned(session, h.lockId(), h.ownerToken(), now);
    if (entry == null) {
      session.send(h.id() + " NOTHELD");
      return;
    }
    if (!leases.covered(session, h.id(), h.ttlMillis(), "; the lease is unchanged")) {
      return;
    }
    if (!leases.detach(entry, session)) {
      session.send(
          h.id()
              + " ERR LIMIT the server already keeps "
              + leases.maxDetached()
              + " detached leases; the lease is unchanged");
      return;
    }
    leases.extend(entry, h.ttlMillis(), now);
    session.send(h.id() + " OK " + h.ownerToken() + " " + entry.fencingToken + " " + h.ttlMillis());
  }

  private void release(Session session, Request.Release r, long now, long receivedNanos) {
    LockEntry entry = leases.owned(session, r.lockId(), r.ownerToken(), now);
    if (entry == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    leases.dropHolder(entry);
    metrics.releases.increment();
    session.send(r.id() + " OK");
    leases.passOn(entry, now, receivedNanos);
  }

  private void status(Session session, Request.Status s, long now) {
    LockEntry entry = leases.current(s.lockId(), now);
    if ((entry == null || !entry.held) && restartWait.holds(now)) {
      // Held, for all this run knows, by a holder of the run before: no token, no owner.
      int waiters = entry == null ? 0 : entry.waiterCount();
      session.send(s.id() + " HELD 0 " + restartWait.leftMillis(now) + " " + waiters + " -");
    } else if (entry == null) {
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

  /** Ends a closed connection's waits and leases ({@link SessionEnds#closed}). */
  void sessionClosed(Session session, long closedNanos, boolean endedByClient) {
    ends.closed(session, closedNanos, endedByClient);
  }

  /** Answers a connection's waits CANCELLED as it ends ({@link SessionEnds#cancelWaits}). */
  void cancelWaits(Session session) {
    ends.cancelWaits(session);
  }

  /** Ends a connection whose client shut down its sending side ({@link SessionEnds#inputEnded}). */
  void inputEnded(Session session) {
    ends.inputEnded(session);
  }
}
