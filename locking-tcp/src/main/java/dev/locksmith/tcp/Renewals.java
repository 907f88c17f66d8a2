package dev.locksmith.tcp;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequests;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases over the provider's connection, one at a time or pipelined in one write: RENEW
 * keeps a lease tied to the connection, HOLD (for a renewal to another ttl) detaches it, and once
 * the server turns out not to know HOLD every renewal is a RENEW.
 */
final class Renewals {
  private static final Logger LOG = LoggerFactory.getLogger(TcpLockProvider.class);

  private final TcpProviderSettings settings;
  private final Connector connector;
  private final Replies replies;

  /** The server answered a HOLD with ERR UNKNOWN_COMMAND (an older version): send RENEW only. */
  private volatile boolean holdUnknown;

  Renewals(TcpProviderSettings settings, Connector connector, Replies replies) {
    this.settings = settings;
    this.connector = connector;
    this.replies = replies;
  }

  /** As {@link TcpLockProvider#renew} says. */
  Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    ClientConnection c = connector.current();
    if (c == null || !c.leases().startRenewal(lease.ownerToken(), lease.lockId())) {
      return Optional.empty();
    }
    try {
      return renewMarked(c, lease, ttl);
    } finally {
      c.leases().renewalEnded(lease.ownerToken());
    }
  }

  /** Renews a lease marked with {@link ConnectionLeases#startRenewal}. */
  private Optional<LeaseGrant> renewMarked(ClientConnection c, LeaseGrant lease, Duration ttl) {
    boolean hold = !ttl.equals(lease.ttl()) && !holdUnknown;
    PendingRequests.Pending p = c.send(RequestLines.renew(lease, ttl, hold));
    Reply reply;
    try {
      reply = replies.awaitUninterruptibly(p, renewal(lease, hold));
      if (hold && Replies.unknownCommand(reply)) {
        holdUnknown();
        hold = false;
        p = c.send(RequestLines.renew(lease, ttl, false));
        reply = replies.awaitUninterruptibly(p, renewal(lease, false));
      }
    } catch (ConnectionLostException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      unanswered(c, lease, ttl, p.sentNanos());
      throw e;
    }
    return renewed(c, lease, ttl, hold, p.sentNanos(), reply);
  }

  /** As {@link TcpLockProvider#renewAll} says. */
  List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    LockRequests.checkRenewals(requests);
    int n = requests.size();
    List<Optional<LeaseGrant>> answers = new ArrayList<>(Collections.nCopies(n, Optional.empty()));
    ClientConnection c = connector.current();
    if (c == null) {
      return answers;
    }
    List<Integer> sentFor = new ArrayList<>(n);
    List<String> lines = new ArrayList<>(n);
    boolean[] hold = new boolean[n];
    for (int i = 0; i < n; i++) {
      RenewalRequest request = requests.get(i);
      LeaseGrant lease = request.lease();
      if (!c.leases().startRenewal(lease.ownerToken(), lease.lockId())) {
        continue;
      }
      hold[i] = !request.ttl().equals(lease.ttl()) && !holdUnknown;
      sentFor.add(i);
      lines.add(RequestLines.renew(lease, request.ttl(), hold[i]));
    }
    if (lines.isEmpty()) {
      return answers;
    }
    try {
      renewBatch(c, requests, answers, sentFor, lines, hold);
    } finally {
      for (int i : sentFor) {
        c.leases().renewalEnded(requests.get(i).lease().ownerToken());
      }
    }
    return answers;
  }

  /**
   * Renews, in one write, the leases of {@code requests} at {@code sentFor}, each marked with
   * {@link ConnectionLeases#startRenewal}, and sets their answers.
   */
  private void renewBatch(
      ClientConnection c,
      List<RenewalRequest> requests,
      List<Optional<LeaseGrant>> answers,
      List<Integer> sentFor,
      List<String> lines,
      boolean[] hold) {
    List<PendingRequests.Pending> sent = c.sendAll(lines);
    List<@Nullable Reply> got;
    try {
      got = replies.awaitAll(sent, "a batch of " + lines.size() + " RENEW requests");
    } catch (RuntimeException e) {
      for (int k = 0; k < sent.size(); k++) {
        RenewalRequest request = requests.get(sentFor.get(k));
        unanswered(c, request.lease(), request.ttl(), sent.get(k).sentNanos());
      }
      throw e;
    }
    RuntimeException refusal = null;
    List<Integer> again = new ArrayList<>();
    for (int k = 0; k < sent.size(); k++) {
      int i = sentFor.get(k);
      Reply reply = got.get(k);
      if (reply == null) {
        continue; // the connection dropped: the server released the lease with it
      }
      RenewalRequest request = requests.get(i);
      if (hold[i] && Replies.unknownCommand(reply)) {
        holdUnknown();
        again.add(i);
        continue;
      }
      try {
        answers.set(
            i, renewed(c, request.lease(), request.ttl(), hold[i], sent.get(k).sentNanos(), reply));
      } catch (RuntimeException e) {
        // Every reply is still taken in; the first refusal is thrown once all are.
        if (refusal == null) {
          refusal = e;
        }
      }
    }
    for (int i : again) {
      answers.set(i, renew(requests.get(i).lease(), requests.get(i).ttl()));
    }
    if (refusal != null) {
      throw refusal;
    }
  }

  /**
   * A renewal got no reply in time, and the server may have renewed the lease all the same: unless
   * it would end sooner that way (a shortening), it is kept as renewed until now (not detached: a
   * HOLD not known to have landed), so that it is not forgotten as ended before that renewal could
   * have run out, and its release is still sent.
   */
  private static void unanswered(
      ClientConnection c, LeaseGrant lease, Duration ttl, long sentNanos) {
    long now = System.nanoTime();
    if (now + ttl.toNanos() - lease.deadlineNanos() > 0) {
      c.leases().renewed(lease.renewed(ttl, sentNanos + ttl.toNanos()), now, false);
    }
  }

  private static String renewal(LeaseGrant lease, boolean hold) {
    return (hold ? "HOLD '" : "RENEW '") + lease.lockId() + "'";
  }

  private void holdUnknown() {
    if (!holdUnknown) {
      holdUnknown = true;
      LOG.info(
          "Server {} does not know HOLD (an older version): leases kept for their minimum hold"
              + " stay tied to the connection",
          settings);
    }
  }

  /** A RENEW or HOLD reply as {@link #renew} answers it; the deadline counts from the send. */
  private Optional<LeaseGrant> renewed(
      ClientConnection c,
      LeaseGrant lease,
      Duration ttl,
      boolean hold,
      long sentNanos,
      Reply reply) {
    switch (reply.kind()) {
      case "OK" -> {
        LeaseGrant renewed = lease.renewed(ttl, sentNanos + ttl.toNanos());
        c.leases().renewed(renewed, reply.arrivedNanos(), hold);
        return Optional.of(renewed);
      }
      case "NOTHELD" -> {
        c.leases().forget(lease.ownerToken());
        return Optional.empty();
      }
      default -> throw replies.refused(renewal(lease, hold), reply);
    }
  }
}
