package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockLostException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conformance suite every provider passes. A provider's test extends it and implements {@link
 * #newProvider()}; each call must return a new client onto the same lock store, as another host
 * would have.
 *
 * <pre>{@code
 * class TcpProviderConformanceTest extends LockProviderContract {
 *   protected LockProvider newProvider() { return LockProviders.create(server.url()); }
 * }
 * }</pre>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockProviderContract {
  private static final Logger LOG = LoggerFactory.getLogger(LockProviderContract.class);

  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  /** Creates the subclass. */
  protected LockProviderContract() {}

  /** A new client of the provider under test onto the shared lock store. */
  protected abstract LockProvider newProvider() throws Exception;

  /**
   * Extra time past a TTL before the provider frees an abandoned lock, such as a file provider's
   * clock-skew allowance. Default: none.
   */
  protected Duration expiryGrace() {
    return Duration.ZERO;
  }

  /** The shortest TTL the provider handles well in tests. Default: 500 ms. */
  protected Duration shortTtl() {
    return Duration.ofMillis(500);
  }

  /** The upper bound asserted for a hand-off from a release to a waiter. Default: 1 s. */
  protected Duration maxHandOff() {
    return Duration.ofSeconds(1);
  }

  /**
   * A new client onto the shared lock store whose path a fault test controls. Network providers
   * return one behind a {@link FaultProxy} ({@link FaultyPath#through}); the default stalls the
   * answers of {@link #newProvider()} ({@link FaultyPath#stalling}), the equivalent for a provider
   * with no network.
   */
  protected FaultyPath newFaultyClient() throws Exception {
    return FaultyPath.stalling(newProvider());
  }

  /**
   * Restarts and state loss of the store under test, for the fencing-token cases. Every provider
   * implements it; the suite calls it from one test at a time.
   */
  protected abstract StoreLifecycle storeLifecycle() throws Exception;

  private FaultyPath faultyClient() throws Exception {
    FaultyPath path = newFaultyClient();
    opened.add(0, path); // closed (and thawed) before the engines that use it
    return path;
  }

  private Locksmith engine(LockProvider provider, LockListener listener) {
    Locksmith locksmith = Locksmith.builder().defaultProvider(provider).listener(listener).build();
    opened.add(0, locksmith);
    return locksmith;
  }

  private LockProvider client() throws Exception {
    LockProvider provider = newProvider();
    opened.add(provider);
    return provider;
  }

  private Locksmith engine(LockProvider provider) {
    Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build();
    opened.add(locksmith);
    return locksmith;
  }

  /** A lock id unique to this test run, so that shared stores are not disturbed. */
  protected String lockId(String name) {
    return prefix + name;
  }

  private static LockRequest request(String lockId, Duration ttl) {
    return LockRequest.of(lockId, ttl);
  }

  @AfterEach
  void closeClients() throws Exception {
    pool.shutdownNow();
    for (AutoCloseable closeable : opened) {
      closeable.close();
    }
  }

  @Test
  void secondAcquireIsRefusedWhileHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("exclusive");
    LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    assertThat(held.lockId()).isEqualTo(id);
    assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
    assertThat(a.tryAcquire(request(id, Duration.ofSeconds(30))))
        .as("another acquisition through the same client")
        .isEmpty();
    assertThat(a.release(held)).isTrue();
  }

  @Test
  void releaseFreesTheLockOnceAndOnlyOnce() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("release");
    for (int round = 0; round < 10; round++) {
      LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(a.release(held)).isTrue();
      assertThat(a.release(held)).as("second release").isFalse();
      LeaseGrant next = b.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(b.release(next)).isTrue();
    }
  }

  @Test
  void distinctKeysAreIndependent() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    LeaseGrant one = a.tryAcquire(request(lockId("key:1"), Duration.ofSeconds(30))).orElseThrow();
    LeaseGrant two = b.tryAcquire(request(lockId("key:2"), Duration.ofSeconds(30))).orElseThrow();
    LeaseGrant odd =
        b.tryAcquire(request(lockId("key:../1 with spaces/ü"), Duration.ofSeconds(30)))
            .orElseThrow();
    assertThat(a.release(one)).isTrue();
    assertThat(b.release(two)).isTrue();
    assertThat(b.release(odd)).isTrue();
  }

  @Test
  void ttlFreesAnAbandonedLock() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("abandoned");
    long start = System.nanoTime();
    a.tryAcquire(request(id, shortTtl())).orElseThrow();
    assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
    LeaseGrant taken = takeAfterExpiry(b, id);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the lock is not freed before its ttl")
        .isGreaterThanOrEqualTo(shortTtl());
    assertThat(b.release(taken)).isTrue();
  }

  @Test
  void staleHolderCanNeitherRenewNorReleaseTheNewHoldersLock() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("stale");
    LeaseGrant stale = a.tryAcquire(request(id, shortTtl())).orElseThrow();
    LeaseGrant fresh = takeAfterExpiry(b, id);
    assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());
    assertThat(a.renew(stale, Duration.ofSeconds(30))).as("stale renew").isEmpty();
    assertThat(a.release(stale)).as("stale release").isFalse();
    assertThat(client().tryAcquire(request(id, Duration.ofSeconds(30))))
        .as("the new holder still holds")
        .isEmpty();
    assertThat(b.renew(fresh, Duration.ofSeconds(30))).isPresent();
    assertThat(b.release(fresh)).isTrue();
  }

  @Test
  void releaseAfterExpiryReportsLostAndChangesNothing() throws Exception {
    LockProvider a = client();
    String id = lockId("expired-release");
    LeaseGrant expired = a.tryAcquire(request(id, shortTtl())).orElseThrow();
    LeaseGrant fresh = takeAfterExpiry(client(), id);
    assertThat(a.release(expired)).isFalse();
    assertThat(a.renew(expired, Duration.ofSeconds(1))).isEmpty();
    assertThat(client().tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
    assertThat(fresh.lockId()).isEqualTo(id);
  }

  private LeaseGrant takeAfterExpiry(LockProvider taker, String id) {
    LeaseGrant[] taken = new LeaseGrant[1];
    await()
        .atMost(shortTtl().plus(expiryGrace()).plusSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Optional<LeaseGrant> grant = taker.tryAcquire(request(id, Duration.ofSeconds(30)));
              grant.ifPresent(g -> taken[0] = g);
              return grant.isPresent();
            });
    return taken[0];
  }

  @Test
  void renewExtendsTheLeaseFromAnyThread() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("renew-thread");
    LeaseGrant held = pool.submit(() -> a.tryAcquire(request(id, shortTtl())).orElseThrow()).get();
    long until = System.nanoTime() + shortTtl().multipliedBy(3).toNanos();
    LeaseGrant current = held;
    while (System.nanoTime() < until) {
      LeaseGrant toRenew = current;
      current =
          pool.submit(() -> a.renew(toRenew, shortTtl()).orElseThrow()).get(10, TimeUnit.SECONDS);
      assertThat(current.fencingToken()).isEqualTo(held.fencingToken());
      assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
      LockSupport.parkNanos(shortTtl().toNanos() / 4);
    }
    LeaseGrant last = current;
    assertThat(pool.submit(() -> a.release(last)).get()).isTrue();
  }

  @Test
  void engineRenewalKeepsTheLockPastItsTtl() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("engine-renew");
    Locksmith locksmith = engine(a);
    long[] tokens = new long[2];
    locksmith.run(
        LockOptions.named(id).withTtl(shortTtl()),
        () -> {
          tokens[0] = dev.locksmith.core.Locks.current().fencingToken();
          long end = System.nanoTime() + shortTtl().multipliedBy(4).toNanos();
          while (System.nanoTime() < end) {
            assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
            LockSupport.parkNanos(shortTtl().toNanos() / 5);
          }
          dev.locksmith.core.Locks.current().checkValid();
          tokens[1] = dev.locksmith.core.Locks.current().fencingToken();
        });
    assertThat(tokens[1]).isEqualTo(tokens[0]);
    assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isPresent();
  }

  @Test
  void fencingTokensStrictlyIncreaseAcrossHolders() throws Exception {
    List<LockProvider> clients = List.of(client(), client(), client());
    String id = lockId("fencing");
    long last = Long.MIN_VALUE;
    for (int round = 0; round < 30; round++) {
      LockProvider client = clients.get(round % clients.size());
      LeaseGrant grant = client.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(grant.fencingToken()).as("round %d", round).isGreaterThan(last);
      last = grant.fencingToken();
      assertThat(client.release(grant)).isTrue();
    }
  }

  @Test
  void waiterIsWokenOnReleaseFarBelowTheTtl() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("handoff");
    List<Long> handOffs = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      CountDownLatch waiting = new CountDownLatch(1);
      Future<Long> waiter =
          pool.submit(
              () -> {
                waiting.countDown();
                LeaseGrant got =
                    b.acquire(request(id, Duration.ofSeconds(30)), Duration.ofSeconds(30))
                        .orElseThrow();
                long grantedAt = System.nanoTime();
                b.release(got);
                return grantedAt;
              });
      waiting.await();
      awaitWaiting(a, id);
      long releasedAt = System.nanoTime();
      assertThat(a.release(held)).isTrue();
      long handOff = waiter.get(30, TimeUnit.SECONDS) - releasedAt;
      handOffs.add(handOff);
    }
    handOffs.sort(null);
    Duration median = Duration.ofNanos(handOffs.get(handOffs.size() / 2));
    LOG.info(
        "{}: hand-off median {} µs, all {}",
        getClass().getSimpleName(),
        median.toNanos() / 1000,
        handOffs);
    assertThat(median).isLessThan(maxHandOff());
  }

  /** Waits until a waiter is queued, where the provider can tell. */
  private void awaitWaiting(LockProvider provider, String id) {
    if (provider.status(id).waiters() >= 0) {
      await().atMost(Duration.ofSeconds(10)).until(() -> provider.status(id).waiters() > 0);
    }
  }

  @Test
  void waitingHonoursItsTimeout() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("timeout");
    LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    long start = System.nanoTime();
    assertThat(b.acquire(request(id, Duration.ofSeconds(30)), Duration.ofMillis(300))).isEmpty();
    Duration waited = Duration.ofNanos(System.nanoTime() - start);
    assertThat(waited)
        .isGreaterThanOrEqualTo(Duration.ofMillis(290))
        .isLessThan(Duration.ofSeconds(5));
    assertThat(a.renew(held, Duration.ofSeconds(30))).as("the holder still holds").isPresent();
    assertThat(a.release(held)).isTrue();
    assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30))))
        .as("the timed-out waiter left nothing behind")
        .isPresent();
  }

  @Test
  void interruptedWaiterLeavesNothingHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("interrupt");
    LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    CountDownLatch waiting = new CountDownLatch(1);
    Thread[] thread = new Thread[1];
    Future<Throwable> waiter =
        pool.submit(
            () -> {
              thread[0] = Thread.currentThread();
              waiting.countDown();
              try {
                b.acquire(request(id, Duration.ofSeconds(30)), Duration.ofSeconds(30));
                return null;
              } catch (InterruptedException e) {
                return e;
              }
            });
    waiting.await();
    awaitWaiting(a, id);
    thread[0].interrupt();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(a.release(held)).isTrue();
    LockProvider c = client();
    assertThat(c.tryAcquire(request(id, Duration.ofSeconds(30))))
        .as("the interrupted waiter was not granted the lock")
        .isPresent();
  }

  @Test
  void minHoldKeepsTheLockAfterAnEarlyRelease() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("min-hold");
    Duration minHold = shortTtl();
    long start = System.nanoTime();
    boolean ran =
        engine(a).run(LockOptions.named(id).withMinHold(minHold).withOnBusy(OnBusy.FAIL), () -> {});
    assertThat(ran).isTrue();
    assertThat(b.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
    takeAfterExpiry(b, id);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(minHold);
  }

  @Test
  void statusNamesTheHolderAndToken() throws Exception {
    LockProvider a = client();
    String id = lockId("status");
    assertThat(a.status(id).currentHolder()).isEmpty();
    LockRequest request = request(id, Duration.ofSeconds(30));
    LeaseGrant held = a.tryAcquire(request).orElseThrow();
    var holder = client().status(id).currentHolder().orElseThrow();
    assertThat(holder.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(holder.owner()).contains(request.owner());
    assertThat(holder.timeLeft()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
    a.release(held);
  }

  @Test
  void mutualExclusionUnder16Threads() throws Exception {
    List<LockProvider> clients = List.of(client(), client(), client(), client());
    String id = lockId("counter");
    int threads = 16;
    int perThread = 15;
    int[] counter = {0};
    List<Future<?>> futures = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      LockProvider client = clients.get(t % clients.size());
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                  LeaseGrant grant =
                      client
                          .acquire(request(id, Duration.ofSeconds(30)), Duration.ofSeconds(60))
                          .orElseThrow(() -> new AssertionError("wait timed out"));
                  int read = counter[0];
                  LockSupport.parkNanos(200_000); // widen the read-write window
                  counter[0] = read + 1;
                  assertThat(client.release(grant)).isTrue();
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> future : futures) {
      future.get(100, TimeUnit.SECONDS);
    }
    assertThat(counter[0]).isEqualTo(threads * perThread);
  }

  @Test
  void engineBusyPoliciesAgainstTheProvider() throws Exception {
    LockProvider a = client();
    String id = lockId("policies");
    LeaseGrant held = a.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    Locksmith other = engine(client());
    LockOptions options = LockOptions.named(id);
    assertThat(other.run(options.withOnBusy(OnBusy.SKIP), () -> {})).isFalse();
    assertThatThrownBy(() -> other.run(options.withOnBusy(OnBusy.FAIL), () -> {}))
        .isInstanceOf(dev.locksmith.core.LockBusyException.class);
    assertThatThrownBy(() -> other.run(options.withWaitTimeout(Duration.ofMillis(200)), () -> {}))
        .isInstanceOf(dev.locksmith.core.LockTimeoutException.class);
    a.release(held);
    assertThat(other.run(options, () -> {})).isTrue();
  }

  // Faults: the engine's timing rules against the real provider on a misbehaving path.

  /** Records lost and error events with when they were seen. */
  private static final class Losses implements LockListener {
    final List<String> lost = new CopyOnWriteArrayList<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    volatile long lostAt;

    @Override
    public void lost(LockEvent event, String reason) {
      lostAt = System.nanoTime();
      lost.add(event.lockId() + ": " + reason);
    }

    @Override
    public void error(LockEvent event, Throwable error) {
      errors.add(error);
    }
  }

  private void awaitFreeFor(LockProvider other, String id, Duration ttl) {
    await()
        .atMost(ttl.plus(expiryGrace()).plusSeconds(2))
        .until(
            () -> {
              Optional<LeaseGrant> taken = other.tryAcquire(request(id, Duration.ofSeconds(5)));
              taken.ifPresent(other::release);
              return taken.isPresent();
            });
  }

  @Test
  void hungRenewalIsReportedLostAtTheDeadlineNotWhenTheCallGivesUp() throws Exception {
    FaultyPath path = faultyClient();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl =
        Duration.ofSeconds(1).compareTo(shortTtl()) > 0 ? Duration.ofSeconds(1) : shortTtl();
    String id = lockId("hung-renewal");
    Lease lease = locksmith.acquire(LockOptions.named(id).withTtl(ttl));
    path.freezeReplies();
    long frozenAt = System.nanoTime();
    long knownDeadline = frozenAt + lease.timeLeft().toNanos();

    await().atMost(ttl.multipliedBy(3)).until(() -> !losses.lost.isEmpty());
    // Never before the last deadline the client knew of, and at most a tick or so after the
    // latest deadline any renewal sent before the freeze could have confirmed.
    assertThat(losses.lostAt - knownDeadline)
        .isGreaterThanOrEqualTo(-TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(Duration.ofNanos(losses.lostAt - (frozenAt + ttl.toNanos())))
        .as("from the deadline to the lost event")
        .isLessThan(Duration.ofMillis(250));
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);

    path.thaw();
    awaitFreeFor(client(), id, ttl);
    assertThat(lease.isValid()).as("a renewal confirmed late does not revive it").isFalse();
    lease.close();
  }

  @Test
  void lateGrantIsRenewedOrRefusedNeverRunExpired() throws Exception {
    FaultyPath path = faultyClient();
    LockProvider other = client();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl = shortTtl();
    String id = lockId("late-grant");
    // A client that has carried traffic before (scripts loaded, connections open).
    LeaseGrant warm =
        path.provider().tryAcquire(request(lockId("late-grant-warm-up"), ttl)).orElseThrow();
    path.provider().release(warm);
    path.freezeReplies();
    Future<Optional<Lease>> attempt =
        pool.submit(() -> locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl)));
    // The store granted it, then its lease ran out while the grant was on its way; another owner
    // takes the lock.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> other.status(id).currentHolder().isPresent());
    LeaseGrant taker = takeAfterExpiry(other, id);
    path.thaw();

    Optional<Lease> result;
    try {
      result = attempt.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LockException.class);
      result = Optional.empty();
    }
    assertThat(result).as("a lease granted too late is never handed out").isEmpty();
    assertThat(other.status(id).holder().fencingToken()).isEqualTo(taker.fencingToken());
    assertThat(other.renew(taker, ttl)).as("the new holder is untouched").isPresent();
    assertThat(other.release(taker)).isTrue();
  }

  @Test
  void lostAcquireReplyLeavesNoGhostLockBeyondOneTtl() throws Exception {
    FaultyPath path = faultyClient();
    Locksmith locksmith = engine(path.provider(), new Losses());
    Duration ttl = shortTtl();
    String id = lockId("lost-acquire-reply");
    path.loseNextReply();
    try {
      Optional<Lease> lease = locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl));
      // The client recovered its grant (a resend that found its own lease): a real lease.
      assertThat(lease).isPresent();
      assertThat(lease.get().isValid()).isTrue();
      lease.get().close();
    } catch (LockException e) {
      LOG.info("Acquire with a lost reply failed as expected: {}", e.getMessage());
    }
    awaitFreeFor(client(), id, ttl);
  }

  @Test
  void lostReleaseReplyIsNotReportedAsALoss() throws Exception {
    FaultyPath path = faultyClient();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl = Duration.ofSeconds(5);
    String id = lockId("lost-release-reply");
    Lease lease = locksmith.acquire(LockOptions.named(id).withTtl(ttl));
    path.loseNextReply();
    lease.close();
    assertThat(losses.lost).as("a release whose reply was lost is not a lost lease").isEmpty();
    awaitFreeFor(client(), id, ttl);
    assertThat(losses.lost).isEmpty();
  }

  /** Annotated calls for the reentrancy case. */
  static final class Reentrant {
    final CompletableFuture<String> pending = new CompletableFuture<>();

    @DistributedLock(name = "contract-reentrant", key = "#p0")
    void outer(String id, Locksmith locksmith) throws Throwable {
      locksmith.invoke(Invocations.of(this, "inner", id));
    }

    @DistributedLock(name = "contract-reentrant", key = "#p0")
    CompletableFuture<String> inner(String id) {
      return pending;
    }
  }

  @Test
  void reenteredCompletionStageKeepsTheLockUntilItCompletes() throws Throwable {
    LockProvider provider = client();
    LockProvider other = client();
    Locksmith locksmith = engine(provider);
    Reentrant calls = new Reentrant();
    String key = lockId("reentrant");
    locksmith.invoke(Invocations.of(calls, "outer", key, locksmith));
    String id = "contract-reentrant:" + key;
    assertThat(other.tryAcquire(request(id, Duration.ofSeconds(5))))
        .as("another owner while the inner call's stage is pending")
        .isEmpty();
    calls.pending.complete("done");
    Optional<LeaseGrant> after = other.tryAcquire(request(id, Duration.ofSeconds(5)));
    assertThat(after).as("another owner once the stage completed").isPresent();
    other.release(after.get());
  }

  @Test
  void minHoldCountsFromTheGrantNotFromTheStartOfTheWait() throws Exception {
    LockProvider holderClient = client();
    LockProvider other = client();
    Locksmith locksmith = engine(client());
    String id = lockId("min-hold-after-wait");
    LeaseGrant holder = holderClient.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    Duration minHold = Duration.ofSeconds(2);
    AtomicLong releasedAt = new AtomicLong();
    Lease lease;
    Future<Lease> waiter =
        pool.submit(
            () ->
                locksmith.acquire(
                    LockOptions.named(id)
                        .withTtl(Duration.ofSeconds(10))
                        .withMinHold(minHold)
                        .withWaitTimeout(Duration.ofSeconds(20))));
    awaitWaiting(holderClient, id);
    // The waiter waits longer than its minimum hold before it is granted.
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      timer.schedule(
          () -> {
            releasedAt.set(System.nanoTime());
            holderClient.release(holder);
          },
          minHold.toMillis() + 500,
          TimeUnit.MILLISECONDS);
      lease = waiter.get(20, TimeUnit.SECONDS);
    } finally {
      timer.shutdown();
    }
    long grantedAt = releasedAt.get(); // no later than the grant the minimum hold counts from
    lease.close();
    Optional<LeaseGrant> early = other.tryAcquire(request(id, Duration.ofSeconds(5)));
    if (early.isPresent()) {
      other.release(early.get());
      assertThat(Duration.ofNanos(System.nanoTime() - grantedAt))
          .as("the lock was free again before minHold had passed since the grant")
          .isGreaterThanOrEqualTo(minHold);
    }
    awaitFreeFor(other, id, minHold);
  }

  @Test
  void shortTtlsOnAFreeLockGrantOrFailClearlyNeverBusy() throws Exception {
    Locksmith locksmith = engine(client());
    LockProvider other = client();
    for (long millis : new long[] {10, 20, 50}) {
      String id = lockId("short-ttl-" + millis);
      Duration ttl = Duration.ofMillis(millis);
      try {
        Optional<Lease> lease = locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl));
        assertThat(lease).as("tryAcquire with a %d ms ttl on a free lock", millis).isPresent();
        lease.get().close();
      } catch (IllegalArgumentException | LockException e) {
        assertThat(e.getMessage()).as("the error for a %d ms ttl", millis).contains("ttl");
      }
      awaitFreeFor(other, id, Duration.ofSeconds(1));
    }
  }

  private long grantAndRelease(String id) throws Exception {
    LockProvider provider = client();
    LeaseGrant grant = provider.tryAcquire(request(id, Duration.ofSeconds(10))).orElseThrow();
    assertThat(provider.release(grant)).isTrue();
    return grant.fencingToken();
  }

  @Test
  void fencingTokensNeverGoBackAcrossRestartsAddedPersistenceAndLostState() throws Exception {
    StoreLifecycle store = storeLifecycle();
    String id = lockId("tokens-across-restarts");
    List<Long> tokens = new ArrayList<>();
    tokens.add(grantAndRelease(id));
    tokens.add(grantAndRelease(id));
    store.restart();
    tokens.add(grantAndRelease(id));
    store.restartWithPersistenceAdded();
    tokens.add(grantAndRelease(id));
    store.restart();
    tokens.add(grantAndRelease(id));
    store.restartLosingState();
    tokens.add(grantAndRelease(id));
    tokens.add(grantAndRelease(id));
    assertThat(tokens)
        .as(
            "tokens of one lock id: first, second, after a restart, after persistence was added,"
                + " after another restart, after the persisted state was lost, and one more")
        .isSortedAccordingTo(Long::compare)
        .doesNotHaveDuplicates();
  }

  @Test
  void leaseShortenedToItsMinHoldOutlivesItsClientsClose() throws Exception {
    LockProvider holderClient = newProvider(); // closed by the test, not by the suite
    LockProvider other = client();
    String id = lockId("detached-min-hold");
    Duration minHold = Duration.ofSeconds(2);
    long grantedAt;
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(holderClient).build()) {
      grantedAt = System.nanoTime(); // no later than the grant the minimum hold counts from
      Lease lease =
          locksmith.acquire(
              LockOptions.named(id).withTtl(Duration.ofSeconds(30)).withMinHold(minHold));
      lease.close(); // the work is done; the lease is shortened to end at minHold
    }
    holderClient.close();
    Optional<LeaseGrant> early = other.tryAcquire(request(id, Duration.ofSeconds(5)));
    if (early.isPresent()) {
      other.release(early.get());
      assertThat(Duration.ofNanos(System.nanoTime() - grantedAt))
          .as("the lock was free again before its minHold ended, after its client closed")
          .isGreaterThanOrEqualTo(minHold);
    }
    awaitFreeFor(other, id, minHold);
  }
}
