package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The engine's lease-timing rules on virtual time: the deadline is watched whatever call is in
 * flight, late grants are renewed or refused, holds count from the grant, and results returned by
 * reentered calls keep the lease.
 */
class LeaseTimingTest extends VirtualTimeFixture {
  /** A lease with a 3 s ttl whose first renewal, 1.1 s after the grant, hangs until answered. */
  private Lease renewalHanging(String name) throws InterruptedException {
    provider.hangRenewals();
    Lease lease = locksmith.acquire(lock(name, "3s"));
    ticker.advance(Duration.ofMillis(1100));
    assertThat(provider.renewStarted.await(5, TimeUnit.SECONDS)).isTrue();
    return lease;
  }

  @Test
  void hungRenewalIsReportedLostAtTheDeadlineNotWhenTheCallGivesUp() throws Exception {
    Lease lease = renewalHanging("hung");
    ticker.advance(Duration.ofMillis(1850));
    assertThat(lease.isValid()).isTrue();
    // Several sweeps see the time just before the deadline, and none reports the loss.
    await()
        .during(Duration.ofMillis(5 * LeaseKeeper.TICK_MILLIS))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !events.events.contains("lost hung"));

    ticker.advance(Duration.ofMillis(50)); // the deadline: 3 s after the grant
    assertThat(lease.isValid()).isFalse();
    await().atMost(Duration.ofSeconds(2)).until(() -> events.events.contains("lost hung"));
    assertThatThrownBy(lease::checkValid)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("its deadline passed while a renewal had been waiting");

    // The renewal finally succeeds: the loss stands and the store's renewed lease is freed.
    provider.answerRenewals();
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> provider.calls.contains("release " + lease.fencingToken()));
    assertThat(lease.isValid()).isFalse();
    lease.close();
  }

  @Test
  void aRenewalConfirmedJustAfterTheDeadlineDoesNotReviveTheLease() throws Exception {
    Lease lease = renewalHanging("revived");
    // Past the deadline; the keeper may not have looked yet.
    ticker.advance(Duration.ofMillis(1950));
    assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);

    provider.answerRenewals();
    await().atMost(Duration.ofSeconds(2)).until(() -> events.events.contains("lost revived"));
    assertThat(lease.isValid()).as("the holder was told it was lost: it stays lost").isFalse();
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> provider.calls.contains("release " + lease.fencingToken()));
    lease.close();
    assertThat(events.events).containsOnlyOnce("lost revived");
  }

  @Test
  void aRenewalConfirmedWhileTheHolderIsToldOfTheDeadlineDoesNotReviveTheLease() throws Exception {
    Lease lease = renewalHanging("told");
    AtomicReference<@Nullable Throwable> told = new AtomicReference<>();
    CountDownLatch checked = new CountDownLatch(1);
    // The renewal's answer has read the time, still before the deadline; the holder then finds
    // the deadline passed before that answer is applied.
    ticker.onNextReadIn(
        "applyRenewal",
        () -> {
          ticker.advance(Duration.ofMillis(2000));
          try {
            lease.checkValid();
          } catch (LockLostException e) {
            told.set(e);
          }
          checked.countDown();
        });

    provider.answerRenewals();
    assertThat(checked.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(told.get()).as("the holder was told the lease was lost").isNotNull();
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> provider.calls.contains("release " + lease.fencingToken()));
    assertThat(lease.isValid()).as("told it was lost, the lease stays lost").isFalse();
    assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);
    lease.close();
    assertThat(events.events).containsOnlyOnce("lost told");
  }

  @Test
  void aListenerClosingTheLeaseANestedTakeFindsLostDoesNotBreakTheTake() {
    AtomicReference<@Nullable Lease> closeWhenLost = new AtomicReference<>();
    try (Locksmith closing =
        Locksmith.builder()
            .defaultProvider(provider)
            .ticker(ticker)
            .listener(
                new LockListener() {
                  @Override
                  public void lost(LockEvent event, String reason) {
                    Lease lease = closeWhenLost.get();
                    if (lease != null && lease.lockId().equals(event.lockId())) {
                      lease.close();
                    }
                  }
                })
            .build()) {
      Lease outer = closing.acquire(lock("outer", "30s"));
      Lease middle = closing.acquire(lock("middle", "2s").withRenew(false));
      Lease inner = closing.acquire(lock("inner", "30s"));
      closeWhenLost.set(middle);
      ticker.advance(Duration.ofSeconds(3));

      // The nested take looks for a lease of "middle" this thread holds, finds it past its
      // deadline, and the listener told so closes it there and then.
      Optional<Lease> again = closing.tryAcquire(lock("middle", "2s"));
      assertThat(middle.isValid()).isFalse();
      assertThat(again).hasValueSatisfying(lease -> assertThat(lease.isValid()).isTrue());
      again.get().close();
      inner.close();
      outer.close();
    }
  }

  @Test
  void lateGrantIsRenewedBeforeItIsUsed() {
    provider.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read() + g.ttl().toNanos() / 4));
    Lease lease = locksmith.acquire(lock("late", "4s"));
    assertThat(provider.calls).containsExactly("acquire", "renew");
    assertThat(lease.timeLeft()).isEqualTo(Duration.ofSeconds(4));
    lease.close();
  }

  @Test
  void grantWithHalfItsTtlLeftIsUsedAsItIs() {
    provider.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read() + g.ttl().toNanos() / 2));
    try (Lease lease = locksmith.acquire(lock("half", "4s"))) {
      assertThat(lease.timeLeft()).isEqualTo(Duration.ofSeconds(2));
    }
    assertThat(provider.calls).containsExactly("acquire", "release 1");
  }

  @Test
  void lateGrantThatCannotBeRenewedIsReleasedAndWaitKeepsWaiting() {
    provider.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read()));
    provider.renewAnswers.add(false);
    Lease lease = locksmith.acquire(lock("retry", "2s").withWaitTimeout(Duration.ofSeconds(5)));
    assertThat(provider.calls).containsExactly("acquire", "renew", "release 1", "acquire");
    assertThat(lease.fencingToken()).isEqualTo(2);
    assertThat(lease.isValid()).isTrue();
    lease.close();
  }

  @Test
  void lateGrantThatCannotBeRenewedFailsATryWithAClearError() {
    provider.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read() - 1));
    provider.renewAnswers.add(false);
    assertThatThrownBy(() -> locksmith.tryAcquire(lock("slow", "20ms")))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("Lock 'slow' was not acquired: it was granted with 0 ms of its 20ms")
        .hasMessageContaining("use a longer ttl");
    // Released off the caller's thread: the caller has its answer without one more call.
    await().atMost(Duration.ofSeconds(2)).until(() -> provider.calls.contains("release 1"));
    assertThat(provider.calls).containsExactly("tryAcquire", "renew", "release 1");
    assertThat(events.events)
        .contains(
            "error slow "
                + "Lock 'slow' was not acquired: it was"
                + " granted with 0 ms of its 20ms ttl left, and the provider no longer held it when it was"
                + " renewed; the provider answers too slowly for this ttl, so use a longer ttl or check the"
                + " provider's latency");
  }

  @Test
  void minHoldAndHeldTimeCountFromTheGrantNotFromTheStartOfTheWait() {
    // The wait takes 2.6 s, then the grant arrives fresh.
    provider.grantShapes.add(
        g -> {
          ticker.advance(Duration.ofMillis(2600));
          return g.renewed(g.ttl(), ticker.read() + g.ttl().toNanos());
        });
    Lease lease =
        locksmith.acquire(
            lock("held", "10s")
                .withWaitTimeout(Duration.ofSeconds(5))
                .withMinHold(Duration.ofSeconds(3)));
    ticker.advance(Duration.ofMillis(200));
    lease.close();
    // Not released: shortened to end 3 s after the grant, 2.8 s from now.
    assertThat(provider.calls).containsExactly("acquire", "renew");
    assertThat(provider.renewTtls).containsExactly(Duration.ofMillis(2800));
    assertThat(held).containsExactly(Duration.ofMillis(200));
  }

  static class Nested {
    final CompletableFuture<String> pending = new CompletableFuture<>();

    @DistributedLock(name = "nested")
    void outer(Nested self, Locksmith engine) throws Exception {
      call(engine, self, "inner");
    }

    @DistributedLock(name = "nested")
    CompletableFuture<String> inner() {
      return pending;
    }
  }

  @Test
  void reenteredCompletionStageKeepsTheLockAfterTheOuterCallReturns() throws Exception {
    MemoryLockProvider memory = MemoryLockProvider.isolated();
    try (Locksmith engine = Locksmith.builder().defaultProvider(memory).build()) {
      Nested nested = new Nested();
      call(engine, nested, "outer", nested, engine);
      assertThat(memory.tryAcquire(LockRequest.of("nested", Duration.ofSeconds(1))))
          .as("another owner while the inner call's future is pending")
          .isEmpty();
      nested.pending.complete("done");
      assertThat(memory.tryAcquire(LockRequest.of("nested", Duration.ofSeconds(1))))
          .as("another owner once it completed")
          .isPresent();
    }
  }

  static class Hard {
    @DistributedLock(name = "hard", ttl = "1s", renew = false, onBusy = OnBusy.FAIL)
    boolean run() {
      return Locks.current().isValid();
    }
  }

  @Test
  void unrenewedLeaseIsLostAtItsTtlOnTheEnginesClock() {
    Lease lease = locksmith.acquire(lock("hard", "1s").withRenew(false));
    ticker.advance(Duration.ofMillis(999));
    assertThat(lease.isValid()).isTrue();
    ticker.advance(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(2)).until(() -> events.events.contains("lost hard"));
    assertThat(provider.calls).doesNotContain("renew");
  }

  @Test
  void renewalsRunOnTheGivenExecutor() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    java.util.concurrent.ExecutorService executor =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            task -> new Thread(task, "my-renewals"));
    try (Locksmith engine =
        engineRenewingOn(
            task ->
                executor.execute(
                    () -> {
                      threads.add(Thread.currentThread().getName());
                      task.run();
                    }))) {
      Lease lease = engine.acquire(lock("pooled", "3s"));
      ticker.advance(Duration.ofMillis(1100));
      assertThat(provider.renewStarted.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(threads).containsExactly("my-renewals");
      lease.close();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void aRenewalExecutorThatRefusesRenewalsIsLoggedOnceNotEveryTick() {
    // The rejection was taken for the engine closing: renewals stopped with nothing logged, and
    // every lease was lost at its deadline with a reason that blamed the provider.
    try (ConsoleLog log = new ConsoleLog();
        Locksmith engine =
            engineRenewingOn(
                task -> {
                  throw new RejectedExecutionException("queue full");
                })) {
      Lease lease = engine.acquire(lock("refused", "3s"));
      ticker.advance(Duration.ofMillis(1100));
      await().atMost(Duration.ofSeconds(5)).until(() -> timesLogged(log, "queue full") > 0);
      // Offered again at every sweep, 100 times a second, and logged only the first time.
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> timesLogged(log, "queue full") == 1);
      lease.close();
    }
  }

  @Test
  void aRenewalExecutorThatDropsABatchDoesNotStopRenewalsForGood() {
    // A discard policy: the first batch is taken and never run. The lane waited for it for good,
    // and every lease of the provider went unrenewed to its deadline.
    AtomicInteger offered = new AtomicInteger();
    ExecutorService executor =
        Executors.newSingleThreadExecutor(task -> new Thread(task, "my-renewals"));
    try (ConsoleLog log = new ConsoleLog();
        Locksmith engine =
            engineRenewingOn(
                task -> {
                  if (offered.incrementAndGet() > 1) {
                    executor.execute(task);
                  }
                })) {
      Lease lease = engine.acquire(lock("dropped", "3s"));
      ticker.advance(Duration.ofMillis(1100));
      await().atMost(Duration.ofSeconds(5)).until(() -> offered.get() == 1);
      ticker.advance(Duration.ofMillis(1100)); // past the wait for the dropped batch, in the TTL
      assertThat(provider.renewStarted.await(5, TimeUnit.SECONDS)).as("renewed after all").isTrue();
      assertThat(timesLogged(log, "has not run them")).isEqualTo(1);
      lease.close();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    } finally {
      executor.shutdownNow();
    }
  }

  /** An engine on the test's provider and ticker whose renewals run on {@code executor}. */
  private Locksmith engineRenewingOn(Executor executor) {
    return Locksmith.builder()
        .defaultProvider(provider)
        .ticker(ticker)
        .renewalExecutor(executor)
        .build();
  }

  private static long timesLogged(ConsoleLog log, String text) {
    return log.lines().stream().filter(line -> line.contains(text)).count();
  }

  @Test
  void aRenewalLeftOnTheGivenExecutorWhenTheEngineClosesNeverReachesTheProvider() {
    List<Runnable> tasks = new CopyOnWriteArrayList<>();
    Locksmith engine = engineRenewingOn(tasks::add);
    engine.acquire(lock("left", "3s"));
    ticker.advance(Duration.ofMillis(1100));
    await().atMost(Duration.ofSeconds(5)).until(() -> !tasks.isEmpty());
    engine.close();
    tasks.forEach(Runnable::run); // the application's executor runs it after all
    assertThat(provider.calls).as("no provider call after close()").doesNotContain("renew");
  }
}
