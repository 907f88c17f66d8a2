package dev.locksmith.tcp.server;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The FIFO queues of ACQUIREs waiting for held locks, one per {@link LockEntry}, with a timer per
 * waiter that answers TIMEOUT when its wait runs out. Core thread only.
 */
final class WaitQueues {
  private final LockIndex index;
  private final ScheduledExecutorService core;
  private final ServerMetrics metrics;
  private final int maxWaitersPerLock;

  WaitQueues(
      LockIndex index,
      ScheduledExecutorService core,
      ServerMetrics metrics,
      int maxWaitersPerLock) {
    this.index = index;
    this.core = core;
    this.metrics = metrics;
    this.maxWaitersPerLock = maxWaitersPerLock;
  }

  /** Queues an ACQUIRE for a held lock, or answers ERR LIMIT when its queue is full. */
  void enqueue(LockEntry entry, Session session, Request.Acquire a, String token, long now) {
    if (entry.waiterCount() >= maxWaitersPerLock) {
      session.send(
          a.id() + " ERR LIMIT lock already has the maximum of " + maxWaitersPerLock + " waiters");
      return;
    }
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

  /**
   * Takes the first waiter of a free lock that can still take it: waiters whose connection has gone
   * are dropped, waiters past their deadline are answered TIMEOUT. Null when none is left.
   */
  @Nullable Waiter next(LockEntry entry, long now) {
    ArrayDeque<Waiter> queue = entry.waiters;
    if (queue == null) {
      return null;
    }
    Waiter next;
    Waiter found = null;
    while (found == null && (next = queue.poll()) != null) {
      finish(next);
      if (!next.session.live()) {
        continue;
      }
      if (now - next.deadline >= 0) {
        next.session.send(next.request.id() + " TIMEOUT");
      } else {
        found = next;
      }
    }
    if (queue.isEmpty()) {
      entry.waiters = null;
    }
    return found;
  }

  /** Takes a waiter out of its lock's queue. */
  void withdraw(Waiter waiter) {
    LockEntry entry = index.get(waiter.request.lockId());
    finish(waiter);
    if (entry != null && entry.waiters != null) {
      entry.waiters.remove(waiter);
      if (entry.waiters.isEmpty()) {
        entry.waiters = null;
      }
      index.removeIfIdle(entry);
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
    if (entry == null) {
      return;
    }
    ArrayDeque<Waiter> queue = entry.waiters;
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
    index.removeIfIdle(entry);
  }
}
