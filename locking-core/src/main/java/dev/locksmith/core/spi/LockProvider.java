package dev.locksmith.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A store of owner-scoped leases with TTLs and fencing tokens. Implementations are thread-safe.
 *
 * <p>Rules every provider keeps (the test kit's conformance suite checks them):
 *
 * <ul>
 *   <li>At most one live lease per lock id. A lease is live until its TTL runs out on the provider
 *       or it is released.
 *   <li>The fencing token strictly increases with every grant of a lock id, across all holders.
 *   <li>Renew and release are owner-checked: they act only when the presented owner token holds a
 *       live lease, so a stale holder changes nothing. The owner belongs to the lease, not to a
 *       thread: any thread may renew or release.
 *   <li>Waiting never holds a monitor ({@code synchronized}), so virtual threads are not pinned. A
 *       provider that can push wake-ups does not poll.
 *   <li>A wait that ends (timeout, interrupt) leaves no ownership behind.
 *   <li>Only a wait answers an interrupt: every other call on a thread whose interrupt flag is set
 *       (a cancelled task releasing its lock) does what it does on any thread and leaves the flag
 *       set ({@link Uninterruptibly}).
 * </ul>
 *
 * <p>Transient failures (unreachable server, storage errors) surface as {@link
 * dev.locksmith.core.LockProviderException}. The engine counts them, and any other {@code
 * RuntimeException} but {@link IllegalArgumentException}, {@link UnsupportedOperationException} and
 * the other {@link dev.locksmith.core.LockException}s (a store that answered and refused one
 * request, such as a limit it reached), as the provider being down: it opens the provider's outage
 * circuit, and locked calls fail fast until a probe ({@link #status} of the lock {@code
 * locksmith-probe}) or a call is answered. Every call should give up within a client timeout of its
 * own, which bounds how late a wait can end.
 */
public interface LockProvider extends AutoCloseable {

  /**
   * Takes the lock if it is free (or its lease has expired) and returns the grant; returns empty at
   * once if another owner holds it.
   *
   * @param request the lock, its owner and ttl
   * @return the grant, or empty when the lock is held
   */
  Optional<LeaseGrant> tryAcquire(LockRequest request);

  /**
   * The most keys one {@link #tryAcquireAll} call may name, and so the most keys one locked call
   * may name ({@code key = "{#from, #to}"}): 64.
   */
  int MAX_KEYS_PER_CALL = 64;

  /**
   * Takes every lock of {@code requests} if all are free, or none: when one is held by another
   * owner, nothing is taken and the result is empty. The lock ids are distinct and given in lock
   * order; the result holds one grant per request, in the same order, each with its own fencing
   * token.
   *
   * <p>Default: {@link #tryAcquire} one by one in the given order, releasing what was taken (in
   * reverse order) when one is busy or a call fails. A provider that can take the set in one round
   * trip (one script, one request) overrides it and keeps the all-or-nothing rule inside its store.
   *
   * @param requests one to {@link #MAX_KEYS_PER_CALL} requests with distinct lock ids
   * @return the grants in request order, or empty when any lock was busy; nothing is held then
   * @throws IllegalArgumentException when {@code requests} is empty, names a lock id twice or holds
   *     more than {@link #MAX_KEYS_PER_CALL} requests
   */
  default Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    LockRequests.checkBatch(requests);
    List<LeaseGrant> taken = new java.util.ArrayList<>(requests.size());
    boolean complete = false;
    try {
      for (LockRequest request : requests) {
        Optional<LeaseGrant> grant = tryAcquire(request);
        if (grant.isEmpty()) {
          return Optional.empty();
        }
        taken.add(grant.get());
      }
      complete = true;
      return Optional.of(List.copyOf(taken));
    } finally {
      if (!complete) {
        LockRequests.releaseQuietly(this, taken);
      }
    }
  }

  /**
   * Takes the lock, waiting up to {@code timeout} for it to become free.
   *
   * @param request the lock, its owner and ttl
   * @param timeout the longest wait
   * @return the grant, or empty when the timeout ran out first
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
   */
  Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) throws InterruptedException;

  /**
   * Extends a live lease to end {@code ttl} from now (or shortens it).
   *
   * <p>The engine renews a lease to another {@code ttl} than its own only when its holder is done
   * but a minimum hold time is left ({@code minHold}, a scheduled job's "hold at least this long"),
   * which shortens it, or lengthens it when the hold outlasts it: such a lease is detached from its
   * holder and must live until its new end even if the client that holds it closes or its
   * connection drops (see {@link #close()}). A provider may take any renewal to another ttl for
   * such a hold.
   *
   * @param lease the live lease
   * @param ttl the new lease length from now
   * @return the renewed grant, or empty when the lease is no longer held by its owner (expired,
   *     released or taken over); nothing changes then
   */
  Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl);

  /**
   * Releases a live lease and wakes a waiter.
   *
   * @param lease the live lease
   * @return whether the lease was still held by its owner; when {@code false} nothing changes
   */
  boolean release(LeaseGrant lease);

  /**
   * Releases a live lease without waiting for the store's answer: the release is sent before this
   * returns, and every later call this provider receives for the same lock id ({@code tryAcquire},
   * {@code acquire}, {@code tryAcquireAll}, {@code renew}, {@code status}) is applied by the store
   * after it. The stage completes with what {@link #release} would return ({@code false}: no longer
   * held by its owner), or exceptionally with what it would throw, within the client's timeout. It
   * may complete on a provider I/O thread: callbacks must not block. {@link #close()} first
   * completes every pending stage.
   *
   * <p>Default: {@link #release} on the calling thread, the stage already complete.
   *
   * @param lease the live lease
   * @return the store's answer: whether the lease was released
   */
  default CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    try {
      return CompletableFuture.completedFuture(release(lease));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The most leases one {@link #renewAll} call may name: 512. */
  int MAX_RENEWALS_PER_CALL = 512;

  /**
   * Renews several live leases in as few round trips as the store allows (one script on Redis, one
   * pipelined write on a lock server, one pass over a lock directory). Each answer is what {@link
   * #renew} would give for its request: the renewed grant (its deadline counted from when the
   * request was sent), or empty when that lease is no longer held by its owner (nothing changes
   * then).
   *
   * <p>Default: {@link #renew} one by one, in order; the first failure is thrown.
   *
   * @param requests up to {@link #MAX_RENEWALS_PER_CALL} leases and their new TTLs
   * @return one answer per request, in request order
   * @throws dev.locksmith.core.LockProviderException when the batch got no answer: any subset may
   *     have been renewed, and the caller retries each (renewing twice is harmless)
   * @throws dev.locksmith.core.LockRecordException when one lease's record could not be read or
   *     written: the leases before it may have been renewed, and the engine renews each lease of
   *     the batch on its own, so that only that one fails
   * @throws IllegalArgumentException for more than {@link #MAX_RENEWALS_PER_CALL} requests
   */
  default List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    LockRequests.checkRenewals(requests);
    List<Optional<LeaseGrant>> renewed = new java.util.ArrayList<>(requests.size());
    for (RenewalRequest request : requests) {
      renewed.add(renew(request.lease(), request.ttl()));
    }
    return renewed;
  }

  /**
   * What the provider knows of a lock's holder and waiters. The engine also calls it as its outage
   * probe, so it should change nothing and answer within the client's timeout.
   *
   * @param lockId the lock id
   * @return the lock's status
   */
  LockStatus status(String lockId);

  /**
   * Every lock held now, for status listings, or empty when the provider cannot list its locks.
   * Default: cannot list.
   *
   * @return every lock held now, for status listings, or empty when the provider cannot list its
   *     locks
   */
  default Optional<List<LockStatus>> listHeld() {
    return Optional.empty();
  }

  /**
   * Registers a callback that the provider calls, from any thread, as soon as it learns that a
   * lease it granted is lost before its deadline: for example its connection dropped and the server
   * released the session's leases. The engine then reports the lease lost at once instead of at its
   * next renewal. Default: the provider never calls it.
   *
   * @param callback told of each lost lease
   * @return a registration to close when the callback is no longer wanted
   */
  default AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    return () -> {};
  }

  /**
   * How long this process may stand still (a long GC pause, {@code SIGSTOP}, a frozen VM) before
   * the store may have ended its leases whatever their TTL, as a ZooKeeper ensemble expires a
   * session it has not heard from; empty, the default, when only the TTL, a release or a reported
   * loss ends a lease. While it stands still the process hears nothing, so nothing else tells it.
   * The engine counts a lease lost once its keeper has not run for longer than this: its {@code
   * isValid} and {@code checkValid} say so from the moment the process runs again, before any
   * renewal or loss report arrives. Asked once per lease, right after its grant, so a limit that
   * depends on the connection (a negotiated session timeout) is the one in force then.
   *
   * @return the longest stop this provider's leases surely survive, or empty when no stop shorter
   *     than the TTL ends them
   */
  default Optional<Duration> pauseLimit() {
    return Optional.empty();
  }

  /**
   * A short description for logs and health, such as the URL without secrets.
   *
   * @return a short description for logs and health, such as the URL without secrets
   */
  String description();

  /**
   * Releases the provider's connections and threads. A lease kept for a minimum hold stays held on
   * the store until its end; other leases it still holds end by their TTL, or at once where the
   * store ties them to the client's session (a lock server releases the leases of running work when
   * their connection closes). Closing is not a loss to report: providers log it at most at INFO.
   */
  @Override
  void close();
}
