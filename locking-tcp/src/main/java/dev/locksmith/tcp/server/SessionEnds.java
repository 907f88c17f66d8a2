package dev.locksmith.tcp.server;

import java.util.ArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a connection's waits and leases when it ends, on the core thread like the rest of
 * the {@link LockTable}.
 */
final class SessionEnds {
  private static final Logger LOG = LoggerFactory.getLogger(SessionEnds.class);

  private final WaitQueues waits;
  private final Leases leases;
  private final ServerMetrics metrics;

  SessionEnds(WaitQueues waits, Leases leases, ServerMetrics metrics) {
    this.waits = waits;
    this.leases = leases;
    this.metrics = metrics;
  }

  /**
   * Withdraws a closed connection's waits and lets go of its leases. Its attached leases are
   * released at once when the client ended the connection, which it then knows of; after a reset or
   * a close by the server they are detached and stay held until their end, since the client may not
   * hear of the close until long after (up to its silence bound) and takes them for held until
   * then. They count against {@code maxDetachedLeases} like any detached lease: beyond it they are
   * released at once, but the lease horizon still covers them, so a restart waits for them.
   *
   * @param closedNanos when the close was seen, the start of the hand-offs it causes
   * @param endedByClient whether the client ended the connection ({@link Session#endedByClient})
   */
  void closed(Session session, long closedNanos, boolean endedByClient) {
    session.closed = true;
    long now = System.nanoTime();
    for (Waiter waiter : new ArrayList<>(session.waits.values())) {
      waits.withdraw(waiter);
    }
    int released = 0;
    int kept = 0;
    LockEntry entry;
    while ((entry = session.attached) != null) {
      if (!endedByClient && leases.detach(entry, session)) {
        metrics.keptAfterClose.increment();
        kept++;
      } else {
        if (!endedByClient) {
          leases.releasingUnheard(entry);
        }
        leases.dropHolder(entry);
        metrics.disconnectReleases.increment();
        released++;
        leases.passOn(entry, now, closedNanos);
      }
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
    if (released > 0 || kept > 0 || detached > 0) {
      LOG.debug(
          "Connection {} closed ({}); released {} lease(s); {} lease(s) and {} detached lease(s) stay"
              + " until their end",
          session,
          endedByClient ? "by the client" : "not by the client",
          released,
          kept,
          detached);
    }
  }

  /**
   * The client shut down its sending side, and every request it sent before has been answered, but
   * for waiting ACQUIREs: answers those CANCELLED (a lease granted now could only be released at
   * once, with the connection) and closes the connection once the replies are sent.
   */
  void inputEnded(Session session) {
    cancelWaits(session);
    session.closeAfterFlush();
  }

  /**
   * The connection is about to end (QUIT, the end of its input, too many bad lines): answers its
   * waiting ACQUIREs CANCELLED and withdraws them, so that no lock is granted to it on its way out
   * (a lease that would be released again at its close, a fencing token later).
   */
  void cancelWaits(Session session) {
    for (Waiter waiter : new ArrayList<>(session.waits.values())) {
      waits.withdraw(waiter);
      session.send(waiter.request.id() + " CANCELLED");
    }
  }
}
