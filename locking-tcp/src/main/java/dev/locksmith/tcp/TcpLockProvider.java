package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockRequests;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tcp://} provider: one multiplexed connection to a Locksmith lock server.
 *
 * <p>Leases of running work belong to the connection: when it drops, the server releases them at
 * once, so this provider reports every such lease granted over a dropped connection as lost: at
 * once to the {@link #onLeaseLost} callbacks, and afterwards {@code renew} returns empty and {@code
 * release} returns false; it never assumes such a lease is still held. A lease whose RELEASE was in
 * flight when the connection dropped is released, not lost: {@code release} returns true. The next
 * request reconnects, with exponential back-off (100 ms doubling to 1 s) after failed attempts;
 * while backing off requests fail fast with {@link LockProviderException}, or {@link
 * LockConfigurationException} when the server rejected the secret (then 5 s). A lease shortened to
 * a minimum hold (see {@link #renew}) is detached from the connection and is not lost with it.
 *
 * <p>Creating the provider checks its settings only and never connects: the first request does. A
 * connection attempt (TCP, TLS, AUTH) takes at most {@code connect-timeout}, and requests that
 * arrive meanwhile wait for that same attempt; a request on an open connection fails after {@code
 * request-timeout} (plus the wait an ACQUIRE asks for) without a reply.
 *
 * <p>Local deadlines are conservative: the time the ACQUIRE or RENEW was sent plus the TTL, and
 * TTLs are rounded up to whole milliseconds on the wire. A grant pushed after a long wait is
 * returned as the server gave it, with little or none of that deadline left; this provider holds no
 * timing policy of its own, and the engine renews such a grant before using it.
 *
 * <p>This class holds the lease semantics and takes leases; {@link Renewals} renews them and {@link
 * Releases} releases them, {@link AcquireWithdrawal} withdraws an ACQUIRE given up on, {@link
 * Connector} makes the connection (back-off, TLS, AUTH), {@link RequestLines} encodes the requests,
 * {@link Replies} waits for and reads the replies, {@link ClientConnection} carries them, and
 * {@link ConnectionLeases} tracks the leases held over one connection.
 */
final class TcpLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(TcpLockProvider.class);

  private final TcpProviderSettings settings;
  private final Connector connector;
  private final Replies replies;
  private final AcquireWithdrawal withdrawal;
  private final Renewals renewals;
  private final Releases releases;
  private final LostLeaseCallbacks lossCallbacks = new LostLeaseCallbacks();
  private volatile boolean acquireAllUnknown;

  /**
   * Creates the provider without connecting: the first request connects. Fails only for settings
   * that cannot work (TLS that cannot be set up from {@code tls-ca}).
   */
  TcpLockProvider(TcpProviderSettings settings) {
    this.settings = settings;
    this.connector = new Connector(settings, lossCallbacks::report);
    this.replies = new Replies(settings);
    this.withdrawal = new AcquireWithdrawal(settings, connector);
    this.renewals = new Renewals(settings, connector, replies);
    this.releases = new Releases(settings, connector, replies);
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    ClientConnection c = connection();
    PendingRequests.Pending p = c.send(RequestLines.acquire(request, 0));
    Reply reply =
        answerNow(c, p, List.of(request), true, "ACQUIRE " + LockIdText.quoted(request.lockId()));
    return grant(c, request, reply, p, "ACQUIRE");
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code ACQUIRE-ALL} request: the server takes every lock or none in one step. The leases
   * belong to the connection like those of {@link #tryAcquire}. Requests that differ in ttl or
   * owner, which one request cannot carry, and a server too old to know ACQUIRE-ALL, get the
   * one-by-one default.
   */
  @Override
  public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    LockRequests.checkBatch(requests);
    if (acquireAllUnknown || !RequestLines.oneRequest(requests)) {
      return LockProvider.super.tryAcquireAll(requests);
    }
    String what = "ACQUIRE-ALL " + RequestLines.names(requests);
    ClientConnection c = connection();
    PendingRequests.Pending p = c.send(RequestLines.acquireAll(requests));
    Reply reply = answerNow(c, p, requests, false, what);
    if (Replies.unknownCommand(reply)) {
      acquireAllUnknown = true;
      LOG.info("Server {} does not know ACQUIRE-ALL: several locks are taken one by one", settings);
      return LockProvider.super.tryAcquireAll(requests);
    }
    Optional<List<LeaseGrant>> grants = replies.grants(requests, reply, p.sentNanos(), what);
    grants.ifPresent(leases -> c.leases().grantedAll(leases, reply.arrivedNanos(), what));
    return grants;
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(
          "interrupted before acquiring " + LockIdText.quoted(request.lockId()));
    }
    long waitMillis = RequestLines.ceilMillis(timeout);
    ClientConnection c = connection();
    PendingRequests.Pending p = c.send(RequestLines.acquire(request, waitMillis));
    Reply reply = awaitAcquire(c, p, request, waitMillis);
    return grant(c, request, reply, p, "ACQUIRE");
  }

  /**
   * Waits for the reply to an ACQUIRE that may wait {@code waitMillis} on the server, and a {@code
   * request-timeout} more. One the caller gives up on, interrupted or unanswered in time, is
   * withdrawn, so that it leaves no lease behind on the server.
   */
  private Reply awaitAcquire(
      ClientConnection c, PendingRequests.Pending p, LockRequest request, long waitMillis)
      throws InterruptedException {
    long nanos = TimeUnit.MILLISECONDS.toNanos(waitMillis) + settings.requestTimeout().toNanos();
    List<LockRequest> requests = List.of(request);
    try {
      return Replies.await(p, nanos);
    } catch (InterruptedException e) {
      withdrawal.now(c, p, requests, true);
      throw e;
    } catch (TimeoutException e) {
      withdrawal.later(c, p, requests, true);
      throw replies.noReply("ACQUIRE " + LockIdText.quoted(request.lockId()), e);
    }
  }

  /**
   * Waits for the reply to a request the server answers at once (an ACQUIRE that does not wait, an
   * ACQUIRE-ALL) through interrupts, which are kept for the caller: it comes within {@code
   * request-timeout}, and an interrupted caller's answer is as good as any. One unanswered in time
   * is withdrawn, so that it leaves no lease behind on the server.
   */
  private Reply answerNow(
      ClientConnection c,
      PendingRequests.Pending p,
      List<LockRequest> requests,
      boolean cancellable,
      String what) {
    return replies.awaitUninterruptibly(
        p, what, () -> withdrawal.later(c, p, requests, cancellable));
  }

  /**
   * Turns an ACQUIRE reply into a grant. The local deadline is conservative: the ACQUIRE's send
   * time plus the ttl, since the server granted no earlier than that, even when the grant was
   * pushed long after (the engine renews a grant that arrives with too little time left). The
   * connection records the lease as learned when the reply arrived.
   */
  private Optional<LeaseGrant> grant(
      ClientConnection c, LockRequest request, Reply reply, PendingRequests.Pending p, String op) {
    switch (reply.kind()) {
      case "OK" -> {
        List<String> f = reply.fields(3);
        long fencing = replies.parseLong(reply, f, 1);
        LeaseGrant lease = request.granted(fencing, p.sentNanos());
        c.leases().granted(lease, reply.arrivedNanos(), false);
        if (!c.isOpen()) {
          throw new ConnectionLostException(
              "connection to "
                  + settings.server()
                  + " lost just after "
                  + LockIdText.quoted(request.lockId())
                  + " was granted;"
                  + " the server released it");
        }
        return Optional.of(lease);
      }
      case "BUSY", "TIMEOUT", "CANCELLED" -> {
        return Optional.empty();
      }
      default -> throw replies.refused(op + " " + LockIdText.quoted(request.lockId()), reply);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A renewal to the lease's own ttl is a RENEW: the lease stays tied to the connection. A
   * renewal to any other ttl is what the engine sends when the work is done but a minimum hold is
   * left (it renews running work with the lease's own ttl, always): it is sent as HOLD, which
   * detaches the lease from the connection, so it stays held until its new end even if this
   * provider is closed or its connection drops. A server too old to know HOLD gets a RENEW, and the
   * lease stays tied to the connection.
   *
   * <p>Returns empty when the connection the lease was granted over has dropped, also while the
   * request is in flight: the server no longer holds the lease for this client (it released it with
   * the connection, or keeps it for no one until its end), so it is lost (and reported to the
   * {@link #onLeaseLost} callbacks).
   */
  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return renewals.renew(lease, ttl);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Every RENEW (or HOLD, as {@link #renew} chooses) goes in one write and one flush over the
   * one connection, and the replies, which the server sends in request order, are awaited under one
   * deadline: {@code request-timeout} from the send. Each answer is what {@link #renew} gives for
   * its lease: empty without a request for a lease the client already knows is gone, empty for
   * NOTHELD or a connection dropped meanwhile, and the renewed grant with its deadline counted from
   * the send. The server's read pause at 64 requests in flight per connection is flow control: the
   * batch is answered in full.
   *
   * @throws LockProviderException when a reply did not come within {@code request-timeout} (any
   *     subset may have been renewed), or the server refused a request (a {@link
   *     dev.locksmith.core.LockException} for a limit it reached, an {@link
   *     IllegalArgumentException} for an argument it does not take)
   */
  @Override
  public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    return renewals.renewAll(requests);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Returns false at once when the client already knows the lease is gone: its connection
   * dropped (the lease was reported lost), or it was released, renewed to NOTHELD or pruned. When
   * the connection drops while the RELEASE is in flight, returns true: the lease was held on that
   * connection when the RELEASE was sent, and the server either applied the RELEASE or lets go of
   * the lease with the connection (at once, or at the lease's end when the client did not end the
   * connection), so it is not reported lost.
   */
  @Override
  public boolean release(LeaseGrant lease) {
    return releases.release(lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The RELEASE is written to the connection before this returns, and the stage completes from
   * its reply, on the provider's I/O thread, with what {@link #release} would give: true, false for
   * NOTHELD (or at once, without a request, for a lease the client already knows is gone), true
   * when the connection drops after the RELEASE was sent (the server lets go of a closed
   * connection's leases), and the same {@link LockProviderException} as {@link #release} when no
   * reply comes within {@code request-timeout}.
   *
   * <p>Ordering: every request of this provider goes over its one connection, in the order the
   * calls wrote them (a call that starts after this one returned writes after this RELEASE), and
   * the server applies a connection's requests in the order it read them, on one thread; so a later
   * {@code tryAcquire}, {@code acquire}, {@code renew} or {@code status} of the lock is applied
   * after the release. Should the connection drop, the server releases the lease with it; a request
   * made over the next connection can reach the server before it has noticed the drop, and then
   * finds the lock still held for that moment, as after a synchronous {@link #release} that
   * returned true for the same reason.
   */
  @Override
  public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    return releases.releaseAsync(lease);
  }

  @Override
  public LockStatus status(String lockId) {
    ClientConnection c = connection();
    Reply reply =
        replies.awaitUninterruptibly(
            c.send(RequestLines.status(lockId)), "STATUS " + LockIdText.quoted(lockId));
    return replies.status(lockId, reply);
  }

  /**
   * Registers a callback told, on the provider's I/O thread, of every lease lost because its
   * connection closed (network failure, server restart or {@code BYE}, silence, a dropped
   * connection after an unanswered CANCEL): the server has released those leases and may have
   * granted them to others already. The callback must be quick and must not call this provider.
   */
  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    return lossCallbacks.add(callback);
  }

  /**
   * The server's counters, from one {@code STATS} request.
   *
   * @throws LockProviderException when the server cannot be reached or refuses
   */
  TcpServerStats serverStats() {
    ClientConnection c = connection();
    Reply reply = replies.awaitUninterruptibly(c.send("STATS"), "STATS");
    if (!reply.is("STATS")) {
      throw replies.refused("STATS", reply);
    }
    return TcpServerStats.parse(settings.description(), reply.rest());
  }

  @Override
  public String description() {
    return settings.description();
  }

  /**
   * {@inheritDoc}
   *
   * <p>First waits up to {@code request-timeout} for the replies to releases sent by {@link
   * #releaseAsync} and completes their stages, failing those still unanswered. Then ends the
   * connection with {@code QUIT} (waiting at most a second for the server to close it; on a thread
   * that runs a Netty event loop, where waiting would stall its channels, not at all), which
   * releases at once the leases of running work held over it. Those are reported to the {@link
   * #onLeaseLost} callbacks on the calling thread, and logged at INFO, before {@code QUIT} is sent;
   * a lease whose {@code HOLD} (a shortening to a minimum hold) is still in flight is among them,
   * though the server applies the {@code HOLD} before the {@code QUIT} and keeps it. Leases kept
   * for a minimum hold stay held until their end.
   */
  @Override
  public void close() {
    releases.awaitPending();
    connector.close();
  }

  @Override
  public String toString() {
    return "TcpLockProvider[" + settings + "]";
  }

  /** The live connection, connecting (subject to back-off) when there is none. */
  ClientConnection connection() {
    return connector.connection();
  }
}
