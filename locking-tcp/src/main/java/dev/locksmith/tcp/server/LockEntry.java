package dev.locksmith.tcp.server;

import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * A lock that has a holder or waiters; core thread only. One object per lock carries the lock's
 * queue and, while it is held, its lease, so a held lock costs one small object plus its id (see
 * {@code locking-tcp/README.md} for the bytes per lease). The lease fields are overwritten when the
 * lock passes to the next holder.
 */
final class LockEntry {
  final String lockId;

  /** The id's hash in the {@link LockIndex}, set when the entry is added to it. */
  int hash;

  /** Queued ACQUIREs, oldest first; null until the first one waits. */
  @Nullable ArrayDeque<Waiter> waiters;

  /** Whether the lock has a live lease; the fields below describe it. */
  boolean held;

  /**
   * Whether the lease is detached: it belongs to no connection and lives until its end, whatever
   * happens to the connection that acquired it.
   */
  boolean detached;

  /**
   * The connection that acquired the lease, the only one that may renew or release it; null once a
   * detached lease's connection has closed.
   */
  @Nullable Session holder;

  /** The owner token; see {@link CompactToken}. */
  String tokenHead = "";

  long tokenSeq;
  boolean compactToken;

  /** The holder's description, shown by STATUS ("" for none). */
  String owner = "";

  long fencingToken;

  /** When the lease ends, on the {@link System#nanoTime()} clock. */
  long expiresAt;

  /** Position in the {@link ExpiryHeap}, -1 when not in it. */
  int heapIndex = -1;

  /** Neighbours in the holder's list of attached or detached leases ({@link Session}). */
  @Nullable LockEntry prev;

  @Nullable LockEntry next;

  LockEntry(String lockId) {
    this.lockId = lockId;
  }

  int waiterCount() {
    ArrayDeque<Waiter> queue = waiters;
    return queue == null ? 0 : queue.size();
  }

  boolean hasWaiters() {
    ArrayDeque<Waiter> queue = waiters;
    return queue != null && !queue.isEmpty();
  }

  /**
   * Sets this lease's owner token, in its compact form when it has one, sharing the head with the
   * holder's previous compact token when they agree.
   */
  void setToken(String token, Session holder) {
    if (CompactToken.fits(token)) {
      String head = holder.lastTokenHead;
      if (head == null || !token.regionMatches(0, head, 0, CompactToken.HEAD)) {
        head = token.substring(0, CompactToken.HEAD);
        holder.lastTokenHead = head;
      }
      tokenHead = head;
      tokenSeq = CompactToken.seq(token);
      compactToken = true;
    } else {
      tokenHead = token;
      tokenSeq = 0;
      compactToken = false;
    }
  }

  /** Whether {@code token} is this lease's owner token. */
  boolean tokenIs(String token) {
    return compactToken
        ? CompactToken.matches(tokenHead, tokenSeq, token)
        : tokenHead.equals(token);
  }
}
