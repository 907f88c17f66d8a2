package dev.locksmith.tcp.server;

import dev.locksmith.core.spi.OwnerTokens;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's leases and waiters. Every method runs on the single core thread, which also runs the
 * TTL and wait timers, so the table needs no locks. Time is {@link System#nanoTime()}.
 *
 * <p>A lock's state exists only while it has a holder or waiters. When a holder goes (release,
 * expiry, disconnect) the first waiter that is still connected and whose wait has not run out gets
 * the lock and its grant is pushed; a waiter past its deadline is answered TIMEOUT instead.
 */
final class LockTable {
  private static final Logger LOG = LoggerFactory.getLogger(LockTable.class);

  private final Map<String, LockState> locks = new HashMap<>();
  private final FencingSequence fencing;
  private final ScheduledExecutorService core;
  private final int maxWaitersPerLock;
  private final int maxPerSession;

  LockTable(
      FencingSequence fencing,
      ScheduledExecutorService core,
      int maxWaitersPerLock,
      int maxPerSession) {
    this.fencing = fencing;
    this.core = core;
    this.maxWaitersPerLock = maxWaitersPerLock;
    this.maxPerSession = maxPerSession;
  }

  /** A held lease. */
  static final class Lease {
    final String lockId;
    final Session session;
    final String ownerToken;
    final String owner;
    final long fencingToken;
    long expiresAt;
    long timerAt;
    @Nullable ScheduledFuture<?> timer;

    Lease(
        String lockId,
        Session session,
        String ownerToken,
        String owner,
        long fencingToken,
        long expiresAt) {
      this.lockId = lockId;
      this.session = session;
      this.ownerToken = ownerToken;
      this.owner = owner;
      this.fencingToken = fencingToken;
      this.expiresAt = expiresAt;
    }
  }

  /** A queued ACQUIRE. */
  static final class Waiter {
    final Session session;
    final Request.Acquire request;
    final String ownerToken;
    final long deadline;
    @Nullable ScheduledFuture<?> timer;

    Waiter(Session session, Request.Acquire request, String ownerToken, long deadline) {
      this.session = session;
      this.request = request;
      this.ownerToken = ownerToken;
      this.deadline = deadline;
    }
  }

  private static final class LockState {
    final String lockId;
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    @Nullable Lease holder;

    LockState(String lockId) {
      this.lockId = lockId;
    }
  }

  /** Number of locks with a holder or waiters. */
  int size() {
    return locks.size();
  }

  void handle(Session session, Request request) {
    if (session.closed) {
      return;
    }
    if (request instanceof Request.Acquire a) {
      acquire(session, a);
    } else if (request instanceof Request.Renew r) {
      renew(session, r);
    } else if (request instanceof Request.Release r) {
      release(session, r);
    } else if (request instanceof Request.Status s) {
      status(session, s);
    } else if (request instanceof Request.Cancel c) {
      cancel(session, c);
    } else {
      throw new IllegalArgumentException("not a lock request: " + request);
    }
  }

  private void acquire(Session session, Request.Acquire a) {
    if (session.waits.containsKey(a.id())) {
      session.send(a.id() + " ERR DUPLICATE_ID request id " + a.id() + " is already waiting");
      return;
    }
    if (session.waits.size() + session.leases.size() >= maxPerSession) {
      session.send(
          a.id()
              + " ERR LIMIT this connection already holds or waits for "
              + maxPerSession
              + " locks");
      return;
    }
    long now = System.nanoTime();
    LockState state = locks.computeIfAbsent(a.lockId(), LockState::new);
    expireIfDue(state, now);
    String token = a.ownerToken() != null ? a.ownerToken() : OwnerTokens.newToken();
    if (state.holder == null && state.waiters.isEmpty()) {
      grant(state, session, a, token, now);
    } else if (a.waitMillis() == 0) {
      session.send(a.id() + " BUSY");
    } else if (state.waiters.size() >= maxWaitersPerLock) {
      session.send(
          a.id() + " ERR LIMIT lock already has the maximum of " + maxWaitersPerLock + " waiters");
    } else {
      Waiter waiter =
          new Waiter(session, a, token, now + TimeUnit.MILLISECONDS.toNanos(a.waitMillis()));
      state.waiters.add(waiter);
      session.waits.put(a.id(), waiter);
      waiter.timer = core.schedule(() -> waitRanOut(waiter), a.waitMillis(), TimeUnit.MILLISECONDS);
    }
    removeIfIdle(state);
  }

  private void grant(LockState state, Session session, Request.Acquire a, String token, long now) {
    long fencingToken;
    if (fencing.isClosed()) {
      session.send(a.id() + " ERR SHUTTING_DOWN the server is stopping");
      return;
    }
    try {
      fencingToken = fencing.next();
    } catch (UncheckedIOException e) {
      LOG.error("Cannot grant {}: {}", state.lockId, e.getMessage(), e.getCause());
      session.send(a.id() + " ERR STORAGE cannot persist fencing tokens");
      return;
    }
    Lease lease =
        new Lease(
            state.lockId,
            session,
            token,
            a.owner(),
            fencingToken,
            now + TimeUnit.MILLISECONDS.toNanos(a.ttlMillis()));
    state.holder = lease;
    session.leases.put(state.lockId, lease);
    armExpiry(state, lease, now);
    session.send(a.id() + " OK " + token + " " + fencingToken + " " + a.ttlMillis());
  }

  private void armExpiry(LockState state, Lease lease, long now) {
    ScheduledFuture<?> old = lease.timer;
    if (old != null) {
      old.cancel(false);
    }
    lease.timerAt = lease.expiresAt;
    lease.timer =
        core.schedule(() -> expiryDue(state, lease), lease.expiresAt - now, TimeUnit.NANOSECONDS);
  }

  private void expiryDue(LockState state, Lease lease) {
    if (state.holder != lease) {
      return;
    }
    long now = System.nanoTime();
    if (now - lease.expiresAt >= 0) {
      expireIfDue(state, now);
      removeIfIdle(state);
    } else {
      armExpiry(state, lease, now);
    }
  }

  private void expireIfDue(LockState state, long now) {
    Lease holder = state.holder;
    if (holder != null && now - holder.expiresAt >= 0) {
      drop(state, holder);
      handOff(state, now);
    }
  }

  private void drop(LockState state, Lease lease) {
    state.holder = null;
    lease.session.leases.remove(state.lockId, lease);
    ScheduledFuture<?> timer = lease.timer;
    if (timer != null) {
      timer.cancel(false);
    }
  }

  /** Grants the lock to the first waiter that can still take it. */
  private void handOff(LockState state, long now) {
    Waiter next;
    while (state.holder == null && (next = state.waiters.poll()) != null) {
      finish(next);
      if (!next.session.live()) {
        continue;
      }
      if (now - next.deadline >= 0) {
        next.session.send(next.request.id() + " TIMEOUT");
        continue;
      }
      grant(state, next.session, next.request, next.ownerToken, now);
    }
  }

  private static void finish(Waiter waiter) {
    waiter.session.waits.remove(waiter.request.id(), waiter);
    ScheduledFuture<?> timer = waiter.timer;
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private void waitRanOut(Waiter waiter) {
    LockState state = locks.get(waiter.request.lockId());
    if (state == null || !state.waiters.remove(waiter)) {
      return;
    }
    finish(waiter);
    if (waiter.session.live()) {
      waiter.session.send(waiter.request.id() + " TIMEOUT");
    }
    removeIfIdle(state);
  }

  private void cancel(Session session, Request.Cancel c) {
    Waiter waiter = session.waits.get(c.acquireId());
    if (waiter == null) {
      session.send(c.id() + " NOTWAITING");
      return;
    }
    LockState state = locks.get(waiter.request.lockId());
    if (state != null) {
      state.waiters.remove(waiter);
      removeIfIdle(state);
    }
    finish(waiter);
    session.send(waiter.request.id() + " CANCELLED");
    session.send(c.id() + " OK");
  }

  private @Nullable Lease owned(Session session, String lockId, String token, long now) {
    LockState state = locks.get(lockId);
    if (state == null) {
      return null;
    }
    expireIfDue(state, now);
    Lease holder = state.holder;
    if (holder == null || holder.session != session || !holder.ownerToken.equals(token)) {
      removeIfIdle(state);
      return null;
    }
    return holder;
  }

  private void renew(Session session, Request.Renew r) {
    long now = System.nanoTime();
    Lease lease = owned(session, r.lockId(), r.ownerToken(), now);
    if (lease == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    lease.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(r.ttlMillis());
    if (lease.expiresAt - lease.timerAt < 0) {
      armExpiry(locks.get(r.lockId()), lease, now);
    }
    session.send(
        r.id() + " OK " + lease.ownerToken + " " + lease.fencingToken + " " + r.ttlMillis());
  }

  private void release(Session session, Request.Release r) {
    long now = System.nanoTime();
    Lease lease = owned(session, r.lockId(), r.ownerToken(), now);
    if (lease == null) {
      session.send(r.id() + " NOTHELD");
      return;
    }
    LockState state = locks.get(r.lockId());
    drop(state, lease);
    session.send(r.id() + " OK");
    handOff(state, now);
    removeIfIdle(state);
  }

  private void status(Session session, Request.Status s) {
    LockState state = locks.get(s.lockId());
    if (state == null) {
      session.send(s.id() + " FREE 0");
      return;
    }
    long now = System.nanoTime();
    expireIfDue(state, now);
    Lease holder = state.holder;
    if (holder == null) {
      session.send(s.id() + " FREE " + state.waiters.size());
    } else {
      long left = TimeUnit.NANOSECONDS.toMillis(holder.expiresAt - now);
      session.send(
          s.id()
              + " HELD "
              + holder.fencingToken
              + " "
              + Math.max(left, 0)
              + " "
              + state.waiters.size()
              + " "
              + (holder.owner.isEmpty() ? "-" : holder.owner));
    }
    removeIfIdle(state);
  }

  /** Releases a closed connection's leases at once and withdraws its waits. */
  void sessionClosed(Session session) {
    session.closed = true;
    long now = System.nanoTime();
    for (Waiter waiter : new ArrayList<>(session.waits.values())) {
      LockState state = locks.get(waiter.request.lockId());
      finish(waiter);
      if (state != null) {
        state.waiters.remove(waiter);
        removeIfIdle(state);
      }
    }
    List<Lease> held = new ArrayList<>(session.leases.values());
    for (Lease lease : held) {
      LockState state = locks.get(lease.lockId);
      if (state != null && state.holder == lease) {
        drop(state, lease);
        handOff(state, now);
        removeIfIdle(state);
      }
    }
    session.leases.clear();
    if (!held.isEmpty()) {
      LOG.debug("Connection {} closed; released {} lease(s)", session, held.size());
    }
  }

  private void removeIfIdle(@Nullable LockState state) {
    if (state != null && state.holder == null && state.waiters.isEmpty()) {
      locks.remove(state.lockId, state);
    }
  }
}
