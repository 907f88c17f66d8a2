package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisLockProviderTest {
  private static final Duration LONG = Duration.ofSeconds(30);
  private static String url;
  private static RedisLockProvider first;
  private static RedisLockProvider second;
  private static ExecutorService threads;

  @BeforeAll
  static void connect() {
    url = RedisTests.sharedUrl();
    first = RedisLockProvider.create(url);
    second = RedisLockProvider.create(url);
    threads = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void disconnect() {
    threads.shutdownNow();
    first.close();
    second.close();
  }

  @Test
  void aSecondOwnerIsRefusedUntilTheFirstReleases() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();

    assertThat(second.tryAcquire(request(id, LONG))).isEmpty();
    assertThat(second.release(lease)).as("release by lease from another client").isTrue();
    LeaseGrant next = second.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(second.release(next)).isTrue();
  }

  @Test
  void aTakeRepeatedByItsHoldingOwnerTokenLastsOnTheStoreUntilItsOwnDeadline() {
    // A wait's later attempt (or a resend) found its own earlier grant and returned it, its local
    // deadline counted from this call while the store kept the first take's expiry: another owner
    // could take the lock in between while this one's lease looked valid.
    String id = lockId();
    LockRequest take = request(id, Duration.ofSeconds(3));
    LeaseGrant earlier = first.tryAcquire(take).orElseThrow();
    await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
    LeaseGrant again = first.tryAcquire(take).orElseThrow();
    Duration storeLeft = second.status(id).currentHolder().orElseThrow().timeLeft();

    assertThat(again.fencingToken()).isEqualTo(earlier.fencingToken());
    assertThat(storeLeft)
        .as("time left on the store against the repeated grant's own (%s)", again.timeLeft())
        .isGreaterThanOrEqualTo(again.timeLeft().minusMillis(100));
    assertThat(first.release(again)).isTrue();
  }

  @Test
  void aLateCopyOfATakeOrRenewalDoesNotCutShortALeaseLengthenedSince() {
    // Redisson resends a command whose reply is late, and the first copy may reach Redis last:
    // arriving after the engine's minimum-hold renewal (longer than the ttl), it set the lease
    // back to its ttl, and another owner took the lock inside the minimum hold.
    String id = lockId();
    LockRequest take = request(id, LONG);
    LeaseGrant lease = first.tryAcquire(take).orElseThrow();
    LeaseGrant held = first.renew(lease, Duration.ofMinutes(10)).orElseThrow();

    assertThat(first.tryAcquire(take)).as("a late copy of the take").isPresent();
    assertThat(first.renew(lease, LONG)).as("a late copy of a renewal").isPresent();
    assertThat(second.status(id).currentHolder().orElseThrow().timeLeft())
        .isGreaterThan(Duration.ofMinutes(9));

    // A renewal for another ttl than the lease's sets it: the minimum hold's, shorter at release.
    first.renew(held, Duration.ofSeconds(5)).orElseThrow();
    assertThat(second.status(id).currentHolder().orElseThrow().timeLeft())
        .isLessThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(first.release(held)).isTrue();
  }

  @Test
  void fencingTokensStrictlyIncreaseAcrossHoldersAndClients() {
    String id = lockId();
    long last = 0;
    for (int i = 0; i < 10; i++) {
      RedisLockProvider provider = i % 2 == 0 ? first : second;
      LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(lease.fencingToken()).isGreaterThan(last);
      last = lease.fencingToken();
      assertThat(provider.release(lease)).isTrue();
    }
  }

  @Test
  void aLeaseTakenOnOneThreadIsRenewedAndReleasedOnAnother() throws Exception {
    String id = lockId();
    LeaseGrant lease =
        CompletableFuture.supplyAsync(
                () -> first.tryAcquire(request(id, Duration.ofSeconds(2))).orElseThrow(), threads)
            .get(10, TimeUnit.SECONDS);

    LeaseGrant renewed =
        CompletableFuture.supplyAsync(() -> first.renew(lease, LONG).orElseThrow(), threads)
            .get(10, TimeUnit.SECONDS);
    assertThat(renewed.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(renewed.ttl()).isEqualTo(LONG);
    assertThat(first.status(id).currentHolder().orElseThrow().timeLeft())
        .isGreaterThan(Duration.ofSeconds(20));

    boolean released =
        CompletableFuture.supplyAsync(() -> first.release(renewed), threads)
            .get(10, TimeUnit.SECONDS);
    assertThat(released).isTrue();
    assertThat(first.status(id).currentHolder()).isEmpty();
  }

  @Test
  void aStaleOwnerChangesNothing() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    LeaseGrant forged = new LeaseGrant(id, "not-the-owner", lease.fencingToken(), LONG, 0);
    LeaseGrant wrongFence =
        new LeaseGrant(id, lease.ownerToken(), lease.fencingToken() + 1, LONG, 0);

    assertThat(second.renew(forged, LONG)).isEmpty();
    assertThat(second.release(forged)).isFalse();
    assertThat(second.renew(wrongFence, LONG)).isEmpty();
    assertThat(second.release(wrongFence)).isFalse();
    assertThat(first.status(id).currentHolder().orElseThrow().fencingToken())
        .isEqualTo(lease.fencingToken());
    assertThat(first.release(lease)).isTrue();
    assertThat(first.release(lease)).as("second release").isFalse();
  }

  @Test
  void anExpiredLeaseIsFreedAndCannotBeRenewedOrReleased() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, Duration.ofMillis(150))).orElseThrow();

    LeaseGrant next =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> second.tryAcquire(request(id, LONG)), Optional::isPresent)
            .orElseThrow();
    assertThat(first.renew(lease, LONG)).isEmpty();
    assertThat(first.release(lease)).isFalse();
    assertThat(second.status(id).currentHolder().orElseThrow().fencingToken())
        .isEqualTo(next.fencingToken());
    assertThat(second.release(next)).isTrue();
  }

  @Test
  void theLocalDeadlineIsConservative() {
    String id = lockId();
    long before = System.nanoTime();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    long after = System.nanoTime();

    assertThat(lease.deadlineNanos()).isBetween(before + LONG.toNanos(), after + LONG.toNanos());
    assertThat(first.release(lease)).isTrue();
  }

  @Test
  void aWaiterIsWokenByTheReleaseLongBeforeTheHoldersTtl() throws Exception {
    String id = lockId();
    LeaseGrant held = first.tryAcquire(request(id, Duration.ofMinutes(5))).orElseThrow();
    CountDownLatch started = new CountDownLatch(1);
    Future<Optional<LeaseGrant>> waiter =
        threads.submit(
            () -> {
              started.countDown();
              return second.acquire(request(id, LONG), Duration.ofMinutes(1));
            });
    started.await();
    await().atMost(Duration.ofSeconds(10)).until(() -> second.subscribedChannels() == 1);
    assertThat(waiter).isNotDone();

    assertThat(first.release(held)).isTrue();
    // The holder's TTL was five minutes: only the published release can end the wait this soon.
    LeaseGrant granted = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
    assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(second.subscribedChannels()).as("no waiter left").isZero();
    assertThat(second.release(granted)).isTrue();
  }

  @Test
  void waitersInOneJvmShareOneSubscriptionAndAllGetTheLockInTurn() throws Exception {
    String id = lockId();
    LeaseGrant held = first.tryAcquire(request(id, Duration.ofMinutes(5))).orElseThrow();
    int count = 4;
    List<Future<LeaseGrant>> waiters =
        java.util.stream.IntStream.range(0, count)
            .mapToObj(
                i ->
                    threads.submit(
                        () -> {
                          LeaseGrant lease =
                              second
                                  .acquire(request(id, LONG), Duration.ofSeconds(30))
                                  .orElseThrow();
                          assertThat(second.release(lease)).isTrue();
                          return lease;
                        }))
            .toList();
    await().atMost(Duration.ofSeconds(10)).until(() -> second.subscribedChannels() == 1);
    assertThat(first.release(held)).isTrue();

    java.util.Set<Long> tokens = new java.util.HashSet<>();
    for (Future<LeaseGrant> waiter : waiters) {
      long token = waiter.get(20, TimeUnit.SECONDS).fencingToken();
      assertThat(token).isGreaterThan(held.fencingToken());
      tokens.add(token);
    }
    assertThat(tokens).hasSize(count);
    await().atMost(Duration.ofSeconds(5)).until(() -> second.subscribedChannels() == 0);
  }

  @Test
  void aWaiterGetsTheLockWhenTheHoldersTtlRunsOut() throws Exception {
    String id = lockId();
    first.tryAcquire(request(id, Duration.ofMillis(500))).orElseThrow();
    long start = System.nanoTime();
    LeaseGrant granted = second.acquire(request(id, LONG), Duration.ofSeconds(10)).orElseThrow();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(second.release(granted)).isTrue();
  }

  @Test
  void acquireReturnsEmptyWhenTheTimeoutRunsOutAndHoldsNothing() throws Exception {
    String id = lockId();
    LeaseGrant held = first.tryAcquire(request(id, LONG)).orElseThrow();
    LockRequest request = request(id, LONG);
    long start = System.nanoTime();
    assertThat(second.acquire(request, Duration.ofMillis(300))).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(second.subscribedChannels()).isZero();
    assertThat(first.release(held)).isTrue();
    assertThat(first.status(id).currentHolder()).isEmpty();
  }

  @Test
  void anInterruptedWaiterThrowsAndHoldsNothing() throws Exception {
    String id = lockId();
    LeaseGrant held = first.tryAcquire(request(id, LONG)).orElseThrow();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                outcome.set(
                    new AssertionError(
                        "returned " + second.acquire(request(id, LONG), Duration.ofMinutes(1))));
              } catch (Throwable e) {
                outcome.set(e);
              }
            });
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> second.subscribedChannels() == 1);
    waiter.interrupt();
    waiter.join(10_000);

    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(second.subscribedChannels()).isZero();
    assertThat(first.release(held)).isTrue();
    assertThat(first.status(id).currentHolder()).as("nothing left held").isEmpty();
  }

  @Test
  void aWaiterInterruptedBeforeItSubscribesThrowsAndHoldsNothing() throws Exception {
    String id = lockId();
    LeaseGrant held = first.tryAcquire(request(id, LONG)).orElseThrow();
    Future<Throwable> outcome =
        threads.submit(
            () -> {
              Thread.currentThread().interrupt();
              try {
                return new AssertionError(
                    "returned " + second.acquire(request(id, LONG), Duration.ofMinutes(1)));
              } catch (Throwable e) {
                return e;
              }
            });

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(second.subscribedChannels()).isZero();
    assertThat(first.release(held)).isTrue();
    assertThat(first.status(id).currentHolder()).as("nothing left held").isEmpty();
  }

  @Test
  void statusReportsTheHolder() {
    String id = lockId();
    assertThat(first.status(id)).isEqualTo(new LockStatus(id, null, -1));
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();

    LockStatus.Holder holder = second.status(id).currentHolder().orElseThrow();
    assertThat(holder.owner()).isEqualTo("test/" + id);
    assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(holder.timeLeft()).isBetween(Duration.ofSeconds(20), LONG);
    assertThat(first.release(lease)).isTrue();
  }

  @Test
  void keysShareTheLockIdsHashTagAndEachHasABoundedLife() throws Exception {
    String id = "orders:{42}%";
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    URI server = URI.create(TestRedis.sharedUrl());
    String prefix = first.options().prefix();
    // The id's own hash tag, 42, then the escaped id.
    String lock = prefix + ":{42}:orders:%7B42%7D%25:lock";
    String fence = prefix + ":{42}:orders:%7B42%7D%25:fence";

    assertThat(call(server, "HGET", lock, "token")).isEqualTo(lease.ownerToken());
    assertThat(call(server, "HGET", lock, "fence")).isEqualTo(Long.toString(lease.fencingToken()));
    assertThat((Long) call(server, "PTTL", lock)).isBetween(20_000L, 30_000L);
    assertThat(call(server, "GET", fence)).isEqualTo(Long.toString(lease.fencingToken()));
    assertThat((Long) call(server, "PTTL", fence))
        .as("the counter's life: the lease's and a minute more")
        .isBetween(LONG.toMillis(), LONG.toMillis() + LuaScripts.FENCE_MARGIN_MILLIS);
    assertThat(first.release(lease)).isTrue();
    assertThat(call(server, "HGET", lock, "token")).as("released").isNull();
    assertThat((Long) call(server, "PTTL", lock))
        .as("the release record's short life")
        .isBetween(1L, LuaScripts.TOMBSTONE_MILLIS);
  }

  @Test
  void aTtlBeyond365DaysIsRefusedBeforeAnyRedisCall() throws Exception {
    String id = lockId();
    Duration huge = Duration.ofDays(200_000);
    URI server = URI.create(TestRedis.sharedUrl());
    LockKeys keys = LockKeys.of(first.options().prefix(), id);

    assertRefusedForTtlBeyondAYear(() -> first.tryAcquire(request(id, huge)));
    assertRefusedForTtlBeyondAYear(() -> first.acquire(request(id, huge), Duration.ofSeconds(1)));
    assertThat(call(server, "EXISTS", keys.lock(), keys.fence())).as("keys written").isEqualTo(0L);

    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    assertRefusedForTtlBeyondAYear(() -> first.renew(lease, huge));
    assertThatThrownBy(() -> first.renew(lease, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> first.renew(lease, Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    assertThat((Long) call(server, "PTTL", keys.lock()))
        .as("the lease's TTL, untouched by the refused renewals")
        .isBetween(1L, LONG.toMillis());
    assertThat(first.release(lease)).isTrue();
  }

  @Test
  void anOwnerTokenTheRecordsCannotKeepApartIsRefusedBeforeAnythingIsSent() throws Exception {
    String id = lockId();
    URI server = URI.create(TestRedis.sharedUrl());
    LockKeys keys = LockKeys.of(first.options().prefix(), id);
    for (String token : List.of("a b", "a/b", "")) {
      LockRequest request = new LockRequest(id, token, LONG, "host/1/test");
      assertThatThrownBy(() -> first.tryAcquire(request))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("owner token '" + token + "' of lock '" + id + "'");
      assertThatThrownBy(() -> first.acquire(request, Duration.ofSeconds(1)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> first.tryAcquireAll(List.of(request, request(lockId(), LONG))))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(call(server, "EXISTS", keys.lock(), keys.fence())).as("keys written").isEqualTo(0L);
    String hugeId = "doc:" + "x".repeat(1_000_000);
    LockRequest huge = new LockRequest(hugeId, "a b" + "y".repeat(1_000_000), LONG, "host/1/test");
    assertThatThrownBy(() -> first.tryAcquire(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("' (1000004 chars)")
        .satisfies(e -> assertThat(e.getMessage()).as("the message").hasSizeLessThan(1000));
  }

  private static void assertRefusedForTtlBeyondAYear(ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl")
        .hasMessageContaining("365d");
  }

  @Test
  void aTtlOf365DaysIsGrantedAndRenewed() throws Exception {
    String id = lockId();
    Duration year = Duration.ofDays(365);
    URI server = URI.create(TestRedis.sharedUrl());
    LockKeys keys = LockKeys.of(first.options().prefix(), id);

    LeaseGrant lease = first.tryAcquire(request(id, year)).orElseThrow();
    assertThat((Long) call(server, "PTTL", keys.lock()))
        .isBetween(year.minusMinutes(1).toMillis(), year.toMillis());
    LeaseGrant renewed = first.renew(lease, year).orElseThrow();
    assertThat(renewed.timeLeft()).isGreaterThan(year.minusMinutes(1));
    assertThat(first.release(renewed)).isTrue();
  }

  @Test
  void aWaitLongerThanTheClockCanCountIsAWaitWithoutEnd() throws Exception {
    String id = lockId();
    Duration forever = Duration.ofDays(200_000);
    LeaseGrant free = first.acquire(request(id, LONG), forever).orElseThrow();
    assertThat(first.release(free)).isTrue();

    first.tryAcquire(request(id, Duration.ofMillis(300))).orElseThrow();
    LeaseGrant afterExpiry = second.acquire(request(id, LONG), forever).orElseThrow();
    assertThat(afterExpiry.fencingToken()).isGreaterThan(free.fencingToken());
    assertThat(second.release(afterExpiry)).isTrue();
  }

  @Test
  void theServiceLoaderFindsTheFactoryForBothSchemes() {
    try (LockProvider provider = LockProviders.create(url)) {
      assertThat(provider).isInstanceOf(RedisLockProvider.class);
      assertThat(provider.description()).isEqualTo(url);
    }
    assertThat(new RedisLockProviderFactory().schemes())
        .containsExactlyInAnyOrder("redis", "rediss");
  }

  private static Object call(URI server, String... command) throws Exception {
    return RespClient.call(server.getHost(), server.getPort(), Duration.ofSeconds(5), command);
  }
}
