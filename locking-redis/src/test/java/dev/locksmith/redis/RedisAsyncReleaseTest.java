package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultProxy.Direction;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RedisLockProvider#releaseAsync}: sent at once, answered from the reply, ordered before
 * every later call on the same lock id of the same provider (an immediate re-acquire is never
 * refused by the lease being released), and flushed by {@code close()}. A server of its own, so
 * that its {@code INFO commandstats} counts this class's commands only.
 */
class RedisAsyncReleaseTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final String PATIENT = "timeout=10s&retry-attempts=0";

  @RegisterExtension
  static final DedicatedRedis dedicated =
      new DedicatedRedis("prefix=async&pool-size=8", "prefix=async");

  private final RedisServerProcess redis = dedicated.server();
  private final RedisLockProvider provider = dedicated.first();
  private final RedisLockProvider other = dedicated.second();

  @Test
  void aReacquireRightAfterReleaseAsyncIsNeverBusyAndTokensRise() throws Exception {
    String id = lockId();
    LeaseGrant lease = releaseAsyncAndReacquire(id, () -> provider.tryAcquire(request(id, LONG)));
    assertThat(provider.release(lease)).isTrue();
    assertThat(provider.pendingReleases().size()).isZero();
    String records = (String) redis.call("HGET", LockKeys.of("async", id).lock(), "released");
    assertThat(records.split(" "))
        .as("records kept, folded releases' included")
        .hasSize(LuaScripts.RELEASE_RECORDS);
  }

  @Test
  void aReacquireOnAnotherThreadRightAfterReleaseAsyncIsNeverBusy() throws Exception {
    ExecutorService elsewhere = Executors.newSingleThreadExecutor();
    try {
      String id = lockId();
      LeaseGrant lease =
          releaseAsyncAndReacquire(
              id,
              () ->
                  elsewhere
                      .submit(() -> provider.acquire(request(id, LONG), Duration.ZERO))
                      .get(10, TimeUnit.SECONDS));
      assertThat(provider.release(lease)).isTrue();
    } finally {
      elsewhere.shutdownNow();
    }
  }

  @Test
  void theFoldedReleaseIsRecordedSoTheLateReleaseReportsItWithoutPublishing() throws Exception {
    String id = lockId();
    LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
    // The release as registered and not sent yet: the acquire overtook it on another connection.
    PendingReleases.Pending pending = provider.pendingReleases().register(lease, "late-release");

    long publishesBefore = dedicated.publishes();
    LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(pending.outcome()).as("answered by the acquire's reply").isCompletedWithValue(true);
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());

    assertThat(provider.release(lease, "late-release")).as("the late release").isTrue();
    assertThat(other.status(id).currentHolder().orElseThrow().fencingToken())
        .as("the new holder keeps the lock")
        .isEqualTo(next.fencingToken());
    assertThat(provider.release(lease)).as("another release call").isFalse();
    assertThat(dedicated.publishes() - publishesBefore)
        .as("nothing published: the lock never became free")
        .isZero();
    assertThat(provider.release(next)).isTrue();
  }

  @Test
  void aLateCopyOfAnAcquireIsRefusedOnceAFoldedReleaseEndedItsLease() {
    String id = lockId();
    LockRequest request = request(id, LONG);
    LeaseGrant lease = provider.tryAcquire(request).orElseThrow();
    PendingReleases.Pending pending = provider.pendingReleases().register(lease, "folded");
    LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(pending.outcome()).isCompletedWithValue(true);
    assertThat(provider.release(next)).isTrue();

    assertThat(other.tryAcquire(request)).as("a late copy of the first acquire").isEmpty();
    assertThat(other.status(id).currentHolder()).isEmpty();
  }

  @Test
  void aFoldedReleaseOfALeaseNoLongerHeldAnswersFalse() {
    String id = lockId();
    LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(other.release(lease)).isTrue();
    PendingReleases.Pending pending = provider.pendingReleases().register(lease, "stale");

    LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(pending.outcome()).isCompletedWithValue(false);
    assertThat(provider.release(lease, "stale")).isFalse();
    assertThat(provider.release(next)).isTrue();
  }

  @Test
  void releaseAsyncAnswersAsReleaseDoes() throws Exception {
    String id = lockId();
    LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(provider.releaseAsync(lease).toCompletableFuture().join()).isTrue();
    assertThat(other.status(id).currentHolder()).isEmpty();
    assertThat(provider.releaseAsync(lease).toCompletableFuture().join())
        .as("released twice")
        .isFalse();

    LeaseGrant deleted = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(redis.call("DEL", LockKeys.of("async", id).lock())).isEqualTo(1L);
    assertThat(provider.releaseAsync(deleted).toCompletableFuture().join())
        .as("deleted meanwhile")
        .isFalse();
  }

  @Test
  void aReleaseWhoseRequestIsHeldBackStaysPendingAndTheLockHeldUntilItArrives() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        RedisLockProvider proxied = patientThrough(proxy)) {
      String id = lockId();
      LeaseGrant lease = proxied.tryAcquire(request(id, LONG)).orElseThrow();

      proxy.freeze(Direction.TO_SERVER);
      CompletableFuture<Boolean> release = proxied.releaseAsync(lease).toCompletableFuture();
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !release.isDone());
      assertThat(other.status(id).currentHolder().orElseThrow().fencingToken())
          .as("still held while the release has not arrived")
          .isEqualTo(lease.fencingToken());

      proxy.thaw(Direction.TO_SERVER);
      assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(other.status(id).currentHolder()).isEmpty();
    }
  }

  @Test
  void aDelayedReplyKeepsTheStagePendingUntilItArrives() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        RedisLockProvider proxied = patientThrough(proxy)) {
      String id = lockId();
      LeaseGrant lease = proxied.tryAcquire(request(id, LONG)).orElseThrow();

      proxy.delay(Direction.TO_CLIENT, Duration.ofSeconds(1));
      long sent = System.nanoTime();
      CompletableFuture<Boolean> release = proxied.releaseAsync(lease).toCompletableFuture();
      assertThat(Duration.ofNanos(System.nanoTime() - sent))
          .as("releaseAsync returns without the reply")
          .isLessThan(Duration.ofMillis(500));
      await().atMost(Duration.ofSeconds(5)).until(() -> other.status(id).currentHolder().isEmpty());
      assertThat(release).as("released on the server, the reply still on its way").isNotDone();
      assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - sent))
          .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }
  }

  @Test
  void aReleaseWithoutAnswerFailsAsReleaseFails() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        RedisLockProvider proxied =
            RedisLockProvider.create(RedisTests.proxiedUrl(proxy, "async"))) {
      String id = lockId();
      LeaseGrant lease = proxied.tryAcquire(request(id, LONG)).orElseThrow();
      proxy.freeze(Direction.TO_CLIENT);

      CompletableFuture<Boolean> release = proxied.releaseAsync(lease).toCompletableFuture();
      assertThatThrownBy(() -> release.get(20, TimeUnit.SECONDS))
          .hasCauseInstanceOf(LockProviderException.class)
          .cause()
          .hasMessageContaining("failed to release lock '" + id + "'");
      assertThatThrownBy(() -> proxied.release(lease))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("failed to release lock '" + id + "'");
      proxy.thaw(Direction.TO_CLIENT);
    }
  }

  @Test
  void closeWaitsForTheAnswersOfReleasesInFlight() throws Exception {
    FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
    ExecutorService closer = Executors.newSingleThreadExecutor();
    try {
      RedisLockProvider proxied = patientThrough(proxy);
      List<LeaseGrant> leases = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        leases.add(proxied.tryAcquire(request(lockId(), LONG)).orElseThrow());
      }
      proxy.freeze(Direction.TO_SERVER);
      List<CompletableFuture<Boolean>> releases = new ArrayList<>();
      for (LeaseGrant lease : leases) {
        releases.add(proxied.releaseAsync(lease).toCompletableFuture());
      }

      CompletableFuture<Void> closed = CompletableFuture.runAsync(proxied::close, closer);
      awaitStillClosing(closed, Duration.ofMillis(500));
      proxy.thaw(Direction.TO_SERVER);
      closed.get(20, TimeUnit.SECONDS);

      for (CompletableFuture<Boolean> release : releases) {
        assertThat(release).as("answered before close returned").isCompletedWithValue(true);
      }
      for (LeaseGrant lease : leases) {
        assertThat(other.status(lease.lockId()).currentHolder()).isEmpty();
      }
      assertThatThrownBy(() -> proxied.releaseAsync(leases.get(0)).toCompletableFuture().join())
          .hasCauseInstanceOf(IllegalStateException.class);
    } finally {
      closer.shutdownNow();
      proxy.close();
    }
  }

  @Test
  void closeWaitsForASynchronousReleaseInFlight() throws Exception {
    FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      RedisLockProvider proxied = patientThrough(proxy);
      // A release before, so that the script is loaded and the connections are open.
      assertThat(proxied.release(proxied.tryAcquire(request(lockId(), LONG)).orElseThrow()))
          .isTrue();
      String id = lockId();
      LeaseGrant lease = proxied.tryAcquire(request(id, LONG)).orElseThrow();
      proxy.freeze(Direction.TO_CLIENT);
      Future<Boolean> release = threads.submit(() -> proxied.release(lease));
      // Redis ran it; its answer is held, so the call is in flight.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> other.status(id).currentHolder().isEmpty());

      Future<?> closed = threads.submit(proxied::close);
      // Longer than the 2 s the client's own shutdown gives the commands it still runs.
      awaitStillClosing(closed, Duration.ofSeconds(3));
      proxy.thaw(Direction.TO_CLIENT);
      closed.get(20, TimeUnit.SECONDS);

      assertThat(release.get(1, TimeUnit.SECONDS)).as("answered before close returned").isTrue();
    } finally {
      threads.shutdownNow();
      proxy.close();
    }
  }

  @Test
  void closeWakesWaitersAtOnceWhileReleasesAreStillInFlight() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
      RedisLockProvider proxied = patientThrough(proxy);
      LeaseGrant lease = proxied.tryAcquire(request(lockId(), LONG)).orElseThrow();
      String busy = lockId();
      LeaseGrant held = other.tryAcquire(request(busy, LONG)).orElseThrow();
      CompletableFuture<Optional<LeaseGrant>> waiter = RedisTests.acquireAsync(proxied, busy, LONG);
      await().atMost(Duration.ofSeconds(10)).until(() -> proxied.subscribedChannels() == 1);
      proxy.freeze(Direction.TO_SERVER);
      CompletableFuture<Boolean> release = proxied.releaseAsync(lease).toCompletableFuture();

      // A thread of its own: the waiter may hold the common pool's only worker.
      FutureTask<Void> closed = new FutureTask<>(proxied::close, null);
      new Thread(closed, "closer").start();
      assertThatThrownBy(() -> waiter.get(2, TimeUnit.SECONDS))
          .as("the waiter is woken before close waits for the release")
          .hasCauseInstanceOf(LockProviderException.class)
          .cause()
          .hasMessageContaining("provider closed");
      assertThat(closed).as("close still waits for the release in flight").isNotDone();
      proxy.thaw(Direction.TO_SERVER);
      closed.get(20, TimeUnit.SECONDS);
      assertThat(release).isCompletedWithValue(true);
      assertThat(other.release(held)).isTrue();
    }
  }

  /**
   * Takes lock {@code id}, then a thousand times sends the release of the lease held with {@code
   * releaseAsync} and at once takes the lock again with {@code reacquire}, which must never find it
   * busy, each new fencing token greater than the one before; every release must answer true.
   * Returns the last lease, still held.
   */
  private LeaseGrant releaseAsyncAndReacquire(String id, Callable<Optional<LeaseGrant>> reacquire)
      throws Exception {
    LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
    List<CompletionStage<Boolean>> releases = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      releases.add(provider.releaseAsync(lease));
      LeaseGrant next =
          reacquire
              .call()
              .orElseThrow(() -> new AssertionError("busy right after its own release"));
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      lease = next;
    }
    for (CompletionStage<Boolean> release : releases) {
      assertThat(release.toCompletableFuture().join()).isTrue();
    }
    return lease;
  }

  /** A provider through {@code proxy} with the class's prefix and {@link #PATIENT} timeouts. */
  /** Fails unless {@code closed}, a provider's close, is still under way after {@code during}. */
  private static void awaitStillClosing(Future<?> closed, Duration during) {
    await()
        .during(during)
        .atMost(during.multipliedBy(2).plusSeconds(1))
        .until(() -> !closed.isDone());
  }

  private static RedisLockProvider patientThrough(FaultProxy proxy) {
    return RedisLockProvider.create(
        "redis://" + proxy.host() + ":" + proxy.port() + "?prefix=async&" + PATIENT);
  }
}
