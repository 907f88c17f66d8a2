package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EngineTest {
  private final MemoryLockProvider provider = MemoryLockProvider.isolated();
  private final RecordingListener events = new RecordingListener();
  private final Locksmith locksmith =
      Locksmith.builder().defaultProvider(provider).listener(events).build();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void close() {
    pool.shutdownNow();
    locksmith.close();
  }

  /** Holds the lock id {@code lockId} from another owner until the returned lease is released. */
  private LeaseGrant holdElsewhere(String lockId) {
    return provider.tryAcquire(LockRequest.of(lockId, Duration.ofSeconds(30))).orElseThrow();
  }

  static class Jobs {
    @DistributedLock(name = "sweep", onBusy = OnBusy.SKIP)
    String sweep() {
      return "swept";
    }

    @DistributedLock(name = "sweep", onBusy = OnBusy.SKIP)
    Optional<String> sweepOptional() {
      return Optional.of("swept");
    }

    @DistributedLock(name = "sweep", onBusy = OnBusy.SKIP)
    CompletableFuture<String> sweepAsync() {
      return CompletableFuture.completedFuture("swept");
    }

    @DistributedLock(name = "sweep", onBusy = OnBusy.FAIL)
    String failFast() {
      return "ran";
    }

    @DistributedLock(name = "sweep", waitTimeout = "100ms")
    String waitShort() {
      return "ran";
    }

    @DistributedLock(name = "sweep", waitTimeout = "10s")
    long waitLong() {
      return Locks.current().fencingToken();
    }

    @DistributedLock(name = "outer")
    long[] outer(Jobs self) throws Throwable {
      long outerToken = Locks.current().fencingToken();
      long innerToken = self.inner();
      return new long[] {outerToken, innerToken, Locks.current().fencingToken()};
    }

    @DistributedLock(name = "outer", onBusy = OnBusy.FAIL)
    long inner() {
      return Locks.current().fencingToken();
    }
  }

  @Test
  void skipReturnsNullEmptyOrCompletedStageAndDoesNotRun() throws Throwable {
    LeaseGrant other = holdElsewhere("sweep");
    assertThat(call(locksmith, new Jobs(), "sweep")).isNull();
    assertThat(call(locksmith, new Jobs(), "sweepOptional")).isEqualTo(Optional.empty());
    CompletionStage<?> stage = (CompletionStage<?>) call(locksmith, new Jobs(), "sweepAsync");
    assertThat(stage.toCompletableFuture()).isCompletedWithValue(null);
    assertThat(events.events).containsExactly("busy sweep", "busy sweep", "busy sweep");
    provider.release(other);
    assertThat(call(locksmith, new Jobs(), "sweep")).isEqualTo("swept");
  }

  @Test
  void failThrowsBusy() {
    holdElsewhere("sweep");
    assertThatThrownBy(() -> call(locksmith, new Jobs(), "failFast"))
        .isInstanceOf(LockBusyException.class)
        .hasMessage("Lock 'sweep' is held by another owner");
  }

  @Test
  void waitTimesOut() {
    holdElsewhere("sweep");
    assertThatThrownBy(() -> call(locksmith, new Jobs(), "waitShort"))
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining("waiting for lock 'sweep'");
    assertThat(events.events).containsExactly("timedOut sweep");
  }

  @Test
  void waitIsWokenByReleaseWithAHigherToken() throws Exception {
    LeaseGrant other = holdElsewhere("sweep");
    CountDownLatch started = new CountDownLatch(1);
    Future<Object> waiter =
        pool.submit(
            () -> {
              started.countDown();
              return call(locksmith, new Jobs(), "waitLong");
            });
    started.await();
    await().until(() -> provider.status("sweep").waiters() == 1);
    provider.release(other);
    assertThat((Long) waiter.get(5, TimeUnit.SECONDS)).isGreaterThan(other.fencingToken());
  }

  @Test
  void nestedCallOnTheSameLockReentersWithTheSameToken() throws Throwable {
    Jobs jobs = new Jobs();
    Jobs proxied =
        new Jobs() {
          @Override
          long inner() {
            try {
              return (Long) call(locksmith, jobs, "inner");
            } catch (Throwable e) {
              throw new AssertionError(e);
            }
          }
        };
    long[] tokens = (long[]) call(locksmith, jobs, "outer", proxied);
    assertThat(tokens[1]).isEqualTo(tokens[0]);
    assertThat(tokens[2]).isEqualTo(tokens[0]);
    assertThat(events.events).containsExactly("acquired outer", "released outer");
  }

  static class Async {
    final CompletableFuture<String> result = new CompletableFuture<>();

    @DistributedLock(name = "report")
    CompletableFuture<String> start() {
      return result;
    }
  }

  @Test
  void completionStageHoldsTheLockUntilItCompletes() throws Throwable {
    Async async = new Async();
    @SuppressWarnings("unchecked")
    CompletableFuture<String> returned =
        (CompletableFuture<String>) call(locksmith, async, "start");
    assertThat(provider.status("report").currentHolder()).isPresent();
    assertThat(returned).isNotDone();
    async.result.complete("done");
    assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(provider.status("report").currentHolder()).isEmpty();
  }

  static class Done {
    @DistributedLock(name = "done")
    CompletableFuture<String> now() {
      return CompletableFuture.completedFuture("done");
    }
  }

  @Test
  void alreadyCompletedStageReleasesAtOnce() throws Exception {
    Object returned = call(locksmith, new Done(), "now");
    assertThat((CompletableFuture<?>) returned).isCompleted();
    assertThat(((CompletableFuture<?>) returned).join()).isEqualTo("done");
    assertThat(provider.status("done").currentHolder()).isEmpty();
    assertThat(Locks.currentIfAny()).isEmpty();
  }

  @Test
  void failedStageAlsoReleases() throws Throwable {
    Async async = new Async();
    CompletableFuture<?> returned = (CompletableFuture<?>) call(locksmith, async, "start");
    async.result.completeExceptionally(new IllegalStateException("boom"));
    assertThat(returned).isCompletedExceptionally();
    assertThat(provider.status("report").currentHolder()).isEmpty();
  }

  @Test
  void theCallerSeesTheStagesOwnFailureNotAWrappedOne() throws Throwable {
    Async async = new Async();
    CompletableFuture<?> returned = (CompletableFuture<?>) call(locksmith, async, "start");
    IllegalStateException boom = new IllegalStateException("boom");
    async.result.completeExceptionally(boom);
    // As without the annotation: exceptionally() gets the method's exception itself.
    assertThat(returned.handle((value, error) -> error).get()).isSameAs(boom);
    assertThat(provider.status("report").currentHolder()).isEmpty();
  }

  @Test
  void aCancelledStageReachesTheCallerCancelled() throws Throwable {
    Async async = new Async();
    CompletableFuture<?> returned = (CompletableFuture<?>) call(locksmith, async, "start");
    async.result.cancel(false);
    assertThat(returned).isCancelled();
    assertThat(provider.status("report").currentHolder()).isEmpty();
  }

  static class Slow {
    final CountDownLatch inside = new CountDownLatch(1);
    final CountDownLatch proceed = new CountDownLatch(1);
    volatile Lease lease;

    @DistributedLock(name = "slow", ttl = "300ms")
    boolean renewed() throws InterruptedException {
      lease = Locks.current();
      inside.countDown();
      proceed.await();
      Locks.current().checkValid();
      return Locks.current().isValid();
    }

    @DistributedLock(name = "hard", ttl = "200ms", renew = false)
    String unrenewed() throws InterruptedException {
      inside.countDown();
      proceed.await();
      Locks.current().checkValid();
      return "unreachable";
    }
  }

  @Test
  void renewalKeepsTheLockPastItsTtl() throws Exception {
    Slow slow = new Slow();
    Future<Object> run = pool.submit(() -> call(locksmith, slow, "renewed"));
    slow.inside.await();
    long token = provider.status("slow").holder().fencingToken();
    // Three full TTLs pass; the renewal must have kept the same lease.
    await()
        .pollDelay(Duration.ofMillis(900))
        .atMost(Duration.ofSeconds(3))
        .until(() -> provider.status("slow").holder() != null);
    assertThat(provider.status("slow").holder().fencingToken()).isEqualTo(token);
    assertThat(provider.tryAcquire(LockRequest.of("slow", Duration.ofSeconds(1)))).isEmpty();
    slow.proceed.countDown();
    assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo(true);
    assertThat(events.events).doesNotContain("lost slow");
  }

  @Test
  void unrenewedLeaseIsReportedLostWhenItsTtlRunsOut() throws Exception {
    Slow slow = new Slow();
    Future<Object> run = pool.submit(() -> call(locksmith, slow, "unrenewed"));
    slow.inside.await();
    await().atMost(Duration.ofSeconds(3)).until(() -> events.events.contains("lost hard"));
    assertThat(provider.tryAcquire(LockRequest.of("hard", Duration.ofSeconds(1)))).isPresent();
    slow.proceed.countDown();
    assertThatThrownBy(() -> run.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LockLostException.class)
        .hasMessageContaining("Lease on lock 'hard' was lost: its ttl of 200ms ran out");
  }

  @Test
  void leaseTakenAwayIsDetectedByTheNextRenewal() throws Exception {
    Slow slow = new Slow();
    Future<Object> run = pool.submit(() -> call(locksmith, slow, "renewed"));
    slow.inside.await();
    // An operator force-releases the lock and someone else takes it.
    Lease held = slow.lease;
    assertThat(
            provider.release(
                new LeaseGrant(
                    "slow", held.ownerToken(), held.fencingToken(), Duration.ofSeconds(1), 0)))
        .isTrue();
    LeaseGrant thief = holdElsewhere("slow");
    await().atMost(Duration.ofSeconds(3)).until(() -> events.events.contains("lost slow"));
    slow.proceed.countDown();
    assertThatThrownBy(() -> run.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LockLostException.class);
    // The stale holder's release changed nothing.
    assertThat(provider.status("slow").holder().fencingToken()).isEqualTo(thief.fencingToken());
  }

  static class Quick {
    @DistributedLock(name = "tick", minHold = "400ms", onBusy = OnBusy.SKIP)
    String tick() {
      return "ticked";
    }
  }

  @Test
  void minHoldKeepsTheLockAfterAnEarlyReturn() throws Throwable {
    long start = System.nanoTime();
    assertThat(call(locksmith, new Quick(), "tick")).isEqualTo("ticked");
    assertThat(call(locksmith, new Quick(), "tick")).isNull();
    await()
        .atMost(Duration.ofSeconds(3))
        .until(
            () -> provider.tryAcquire(LockRequest.of("tick", Duration.ofSeconds(1))).isPresent());
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
  }

  static class Failing {
    @DistributedLock(name = "boom")
    String explode() {
      throw new IllegalStateException("method failed");
    }
  }

  @Test
  void failingReleaseNeverHidesTheMethodsException() {
    LockProvider broken = new ReleaseFailingProvider(MemoryLockProvider.isolated());
    try (Locksmith engine = Locksmith.builder().defaultProvider(broken).listener(events).build()) {
      assertThatThrownBy(() -> call(engine, new Failing(), "explode"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("method failed");
    }
    assertThat(events.events)
        .containsExactly("acquired boom", "error boom release failed", "released boom");
  }

  @Test
  void programmaticAcquireRunAndCall() throws Exception {
    LockOptions options = LockOptions.named("batch").withKey("2026-11").withOnBusy(OnBusy.FAIL);
    try (Lease lease = locksmith.acquire(options)) {
      assertThat(lease.lockId()).isEqualTo("batch:2026-11");
      assertThat(lease.isValid()).isTrue();
      // The same thread reenters; another thread is refused.
      assertThat(locksmith.tryAcquire(options).orElseThrow().fencingToken())
          .isEqualTo(lease.fencingToken());
      assertThat(locksmith.call(options, () -> Locks.current().fencingToken()))
          .isEqualTo(lease.fencingToken());
      assertThat(pool.submit(() -> locksmith.tryAcquire(options)).get()).isEmpty();
    }
    assertThat(locksmith.run(options, () -> assertThat(Locks.current().key()).isEqualTo("2026-11")))
        .isTrue();
    LeaseGrant other = holdElsewhere("batch:2026-11");
    assertThat(locksmith.run(options.withOnBusy(OnBusy.SKIP), () -> {})).isFalse();
    assertThatThrownBy(() -> locksmith.acquire(options)).isInstanceOf(LockBusyException.class);
    provider.release(other);
  }

  @Test
  void aVeryLongLockIdIsShortenedInMessagesAndKeptWholeInTheException() {
    String key = "k".repeat(1 << 20);
    LockOptions options = LockOptions.named("batch").withKey(key).withOnBusy(OnBusy.FAIL);
    LeaseGrant other = holdElsewhere("batch:" + key);

    assertThatThrownBy(() -> locksmith.acquire(options))
        .isInstanceOfSatisfying(
            LockBusyException.class,
            e -> {
              assertThat(e.lockId()).isEqualTo("batch:" + key);
              assertThat(e.getMessage())
                  .startsWith("Lock 'batch:kkk")
                  .contains("...' (1048582 chars)")
                  .hasSizeLessThan(300);
            });
    assertThatThrownBy(
            () ->
                locksmith.acquire(
                    options.withOnBusy(OnBusy.WAIT).withWaitTimeout(Duration.ofMillis(50))))
        .isInstanceOf(LockTimeoutException.class)
        .message()
        .hasSizeLessThan(300);
    provider.release(other);
  }

  @Test
  void closedLeaseIsNoLongerValid() {
    Lease lease = locksmith.acquire(LockOptions.named("once"));
    lease.close();
    lease.close();
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid)
        .isInstanceOf(LockLostException.class)
        .hasMessage("Lease on lock 'once' was lost: it was released");
    assertThat(events.events).containsExactly("acquired once", "released once");
  }

  @Test
  void releaseAfterExpiryIsReportedLost() {
    Lease lease =
        locksmith.acquire(
            LockOptions.named("short").withTtl(Duration.ofMillis(100)).withRenew(false));
    await().atMost(Duration.ofSeconds(2)).until(() -> !lease.isValid());
    LeaseGrant next = holdElsewhere("short");
    lease.close();
    // The keeper's thread may be the one that reports the loss, just after the deadline.
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(() -> assertThat(events.events).contains("lost short"));
    assertThat(provider.status("short").holder().fencingToken()).isEqualTo(next.fencingToken());
  }

  @Test
  void providerReportedLossIsSeenAtOnceNotAtTheNextRenewal() {
    LossReportingProvider reporting = new LossReportingProvider(MemoryLockProvider.isolated());
    try (Locksmith engine =
        Locksmith.builder().defaultProvider(reporting).listener(events).build()) {
      Lease lease =
          engine.acquire(
              LockOptions.named("session").withTtl(Duration.ofMinutes(5)).withRenew(false));
      assertThat(lease.isValid()).isTrue();
      reporting.reportLost();
      assertThat(lease.isValid()).isFalse();
      assertThat(events.events).contains("lost session");
      lease.close();
    }
  }

  @Test
  void lossReportedWhileTheGrantWasReturningIsNotMissed() {
    LossReportingProvider reporting = new LossReportingProvider(MemoryLockProvider.isolated());
    reporting.reportLostOnGrant();
    try (Locksmith engine =
        Locksmith.builder().defaultProvider(reporting).listener(events).build()) {
      Lease lease =
          engine.acquire(LockOptions.named("racy").withTtl(Duration.ofMinutes(5)).withRenew(false));
      assertThat(lease.isValid()).isFalse();
      assertThat(events.events)
          .as("a lease is acquired before it can be lost")
          .containsSubsequence("acquired racy", "lost racy");
      lease.close();
    }
  }

  @Test
  void aGrantAfterCloseIsGivenBackAndTheWaitingCallDoesNotRun() throws Exception {
    assertGivenBackAfterClose(LockOptions.named("x"), "x");
  }

  @Test
  void aSetOfGrantsAfterCloseIsGivenBackAndTheWaitingCallDoesNotRun() throws Exception {
    assertGivenBackAfterClose(LockOptions.named("acct").withKeys("a", "b"), "acct:a");
  }

  /**
   * A call waiting on {@code heldId} when the engine closes, granted afterwards: the engine no
   * longer renews or watches leases, so the call must not run under it. It fails with the engine's
   * "closed" error and the grant is given back. The provider was given to the builder, so closing
   * the engine does not close it nor wake its waiters.
   */
  private void assertGivenBackAfterClose(LockOptions options, String heldId) throws Exception {
    LeaseGrant other = holdElsewhere(heldId);
    AtomicBoolean ran = new AtomicBoolean();
    Future<Boolean> waiting =
        pool.submit(
            () ->
                locksmith.run(
                    options.withTtl(Duration.ofMillis(300)).withWaitTimeout(Duration.ofSeconds(10)),
                    () -> ran.set(true)));
    await().atMost(Duration.ofSeconds(5)).until(() -> provider.status(heldId).waiters() == 1);

    locksmith.close();
    assertThat(provider.release(other)).isTrue();

    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(ran).as("the call ran under a lease nobody renews").isFalse();
    assertThat(provider.status(heldId).holder()).as("the grant was given back").isNull();
    assertThat(events.events).noneMatch(event -> event.startsWith("acquired"));
  }

  @Test
  void closedEngineRefusesNewLocks() {
    Locksmith closed = Locksmith.builder().defaultProvider(provider).build();
    closed.close();
    assertThatThrownBy(() -> closed.acquire(LockOptions.named("late")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(provider.status("late").currentHolder()).isEmpty();
  }

  @Test
  void currentOutsideALockedMethodSaysWhy() {
    assertThatThrownBy(Locks::current)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("only available inside a method running under @DistributedLock");
    assertThat(Locks.currentIfAny()).isEmpty();
  }
}
