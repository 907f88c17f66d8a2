package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.PreparedCall;
import dev.locksmith.core.internal.ReleaseDeferral;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The hooks integrations use: deferred release (transactions) and prepared calls (reactive). */
class IntegrationHooksTest {
  private final MemoryLockProvider provider = MemoryLockProvider.isolated();

  /** An engine on the test's provider, with keys in the test key language. */
  private Locksmith engine(ReleaseDeferral deferral) {
    return Locksmith.builder()
        .keyLanguage(ConcatKeys.LANGUAGE)
        .defaultProvider(provider)
        .releaseDeferral(deferral)
        .build();
  }

  /** A deferral that hands every release to {@code releases} and runs none itself. */
  private static ReleaseDeferral deferringTo(Consumer<Runnable> releases) {
    return (lease, release) -> {
      releases.accept(release);
      return true;
    };
  }

  static class Ledger {
    @DistributedLock(name = "ledger", key = "#account", onBusy = OnBusy.SKIP)
    String post(String account) {
      return "posted " + account;
    }

    @DistributedLock(name = "ledger", key = "#account")
    String refuse(String account) throws java.io.IOException {
      throw new java.io.IOException("refused " + account);
    }
  }

  @Test
  void reflectiveInvocationRunsTheMethodUnderItsLockAndThrowsWhatItThrows() throws Throwable {
    try (Locksmith locksmith = engine(ReleaseDeferral.NONE)) {
      Ledger ledger = new Ledger();
      Method post = Calls.method(Ledger.class, "post");
      post.setAccessible(true); // package-private, as test classes are
      LockedInvocation call = LockedInvocation.reflective(ledger, post, "a-7");
      assertThat(call.targetClass()).isEqualTo(Ledger.class);
      assertThat(call.arguments()).containsExactly("a-7");
      assertThat(locksmith.invoke(call)).isEqualTo("posted a-7");

      Method refuse = Calls.method(Ledger.class, "refuse");
      refuse.setAccessible(true);
      assertThatThrownBy(() -> locksmith.invoke(LockedInvocation.reflective(ledger, refuse, "a-8")))
          .isExactlyInstanceOf(java.io.IOException.class)
          .hasMessage("refused a-8");
      assertThat(provider.status("ledger:a-8").currentHolder()).as("released").isEmpty();
    }
  }

  @Test
  void deferredReleaseKeepsTheLockUntilTheDeferralRunsIt() throws Exception {
    AtomicReference<Runnable> pending = new AtomicReference<>();
    try (Locksmith locksmith = engine(deferringTo(pending::set))) {
      assertThat(call(locksmith, new Ledger(), "post", "a-1")).isEqualTo("posted a-1");
      assertThat(provider.status("ledger:a-1").currentHolder()).as("held until commit").isPresent();
      assertThat(
              CompletableFuture.supplyAsync(
                      () -> {
                        try {
                          return call(locksmith, new Ledger(), "post", "a-1");
                        } catch (Exception e) {
                          throw new IllegalStateException(e);
                        }
                      })
                  .join())
          .as("another thread skips meanwhile")
          .isNull();
      pending.get().run();
      assertThat(provider.status("ledger:a-1").currentHolder()).isEmpty();
    }
  }

  @Test
  void aCallInTheSameTransactionReentersALeaseWhoseReleaseWaits() throws Exception {
    List<Runnable> pending = new ArrayList<>();
    try (Locksmith locksmith = engine(deferringTo(pending::add))) {
      // Two posts to one account in one transaction: the second must not wait for the first,
      // whose release waits for the commit.
      Ledger ledger = new Ledger();
      assertThat(call(locksmith, ledger, "post", "a-4")).isEqualTo("posted a-4");
      assertThat(call(locksmith, ledger, "post", "a-4")).isEqualTo("posted a-4");
      assertThat(pending).as("one acquisition, released once").hasSize(1);
      assertThat(provider.status("ledger:a-4").currentHolder()).isPresent();
      pending.forEach(Runnable::run);
      assertThat(provider.status("ledger:a-4").currentHolder()).isEmpty();
      // Once released, the thread no longer reenters it.
      assertThat(call(locksmith, ledger, "post", "a-4")).isEqualTo("posted a-4");
      assertThat(pending).hasSize(2);
      pending.get(1).run(); // the transaction ends: close() need not wait for the call
    }
  }

  @Test
  void failingDeferralReleasesAtOnceAndSaysSo() throws Exception {
    try (ConsoleLog log = new ConsoleLog();
        Locksmith locksmith =
            engine(
                (lease, release) -> {
                  throw new IllegalStateException("no transaction manager");
                })) {
      call(locksmith, new Ledger(), "post", "a-2");
      assertThat(provider.status("ledger:a-2").currentHolder()).isEmpty();
      assertThat(log.lines("WARN", "release deferral failed for lock 'ledger:a-2'"))
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .contains("no transaction manager");
    }
  }

  @Test
  void preparedCallResolvesTheKeyAndTakesTheLockLater() throws Exception {
    try (Locksmith locksmith = engine(ReleaseDeferral.NONE)) {
      Method post = Calls.method(Ledger.class, "post");
      PreparedCall prepared = locksmith.prepare(invocation(post, "a-3"));
      assertThat(prepared.options().lockId()).isEqualTo("ledger:a-3");
      assertThat(provider.status("ledger:a-3").currentHolder()).as("not yet taken").isEmpty();
      Lease lease = prepared.acquire();
      assertThat(lease).isNotNull();
      assertThat(locksmith.prepare(invocation(post, "a-3")).acquire())
          .as("SKIP when busy")
          .isNull();
      prepared.release(lease);
      assertThat(provider.tryAcquire(LockRequest.of("ledger:a-3", Duration.ofSeconds(1))))
          .isPresent();
    }
  }

  @Test
  void preparedCallTakenOnAThreadThatHoldsItsLockReentersThatLease() throws Throwable {
    try (Locksmith locksmith = engine(ReleaseDeferral.NONE)) {
      Method post = Calls.method(Ledger.class, "post");
      AtomicReference<@Nullable Lease> inner = new AtomicReference<>();
      Object result =
          locksmith.invoke(
              Calls.invocation(
                  post,
                  Ledger.class,
                  new Object[] {"a-6"},
                  () -> {
                    PreparedCall nested = locksmith.prepare(invocation(post, "a-6"));
                    Lease lease = nested.acquire();
                    inner.set(lease);
                    if (lease != null) {
                      nested.release(lease);
                    }
                    return "ran";
                  }));
      assertThat(result).isEqualTo("ran");
      assertThat(inner.get()).as("reentered, not skipped as busy under SKIP").isNotNull();
      assertThat(provider.tryAcquire(LockRequest.of("ledger:a-6", Duration.ofSeconds(1))))
          .as("released once the outer call ended")
          .isPresent();
    }
  }

  @Test
  void cancelledAsyncAcquireReleasesALeaseGrantedAfterwards() throws Exception {
    try (Locksmith locksmith = engine(ReleaseDeferral.NONE)) {
      Method post = Calls.method(WaitingLedger.class, "post");
      var other =
          provider.tryAcquire(LockRequest.of("waiting:a-5", Duration.ofSeconds(30))).orElseThrow();
      java.util.concurrent.ExecutorService executor =
          java.util.concurrent.Executors.newSingleThreadExecutor();
      try {
        CompletableFuture<Lease> pending =
            locksmith.prepare(invocation(post, "a-5")).acquireAsync(executor);
        org.awaitility.Awaitility.await()
            .until(() -> provider.status("waiting:a-5").waiters() == 1);
        pending.cancel(false);
        provider.release(other); // the waiter is granted after its future was cancelled
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    provider
                        .tryAcquire(LockRequest.of("waiting:a-5", Duration.ofSeconds(1)))
                        .isPresent());
      } finally {
        executor.shutdownNow();
      }
    }
  }

  @Test
  void closingTheEngineEndsEveryAsyncAcquireQueuedForAnAcquiringThread() throws Exception {
    // Beyond the engine's acquiring threads, acquisitions queue; close dropped the queued ones,
    // and their futures (a Mono's subscriber) never completed.
    Locksmith locksmith = engine(ReleaseDeferral.NONE);
    Method post = Calls.method(WaitingLedger.class, "post");
    var other =
        provider.tryAcquire(LockRequest.of("waiting:a-9", Duration.ofSeconds(30))).orElseThrow();
    List<CompletableFuture<@Nullable Lease>> pending = new ArrayList<>();
    try {
      for (int i = 0; i < EngineThreads.REACTIVE_ACQUIRE_THREADS + 20; i++) {
        pending.add(locksmith.prepare(invocation(post, "a-9")).acquireAsync());
      }
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  Thread.getAllStackTraces().keySet().stream()
                          .filter(
                              t ->
                                  t.getName().startsWith(EngineThreads.REACTIVE_ACQUIRE_PREFIX)
                                      && t.getState() == Thread.State.TIMED_WAITING)
                          .count()
                      == EngineThreads.REACTIVE_ACQUIRE_THREADS);
      locksmith.close();
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
          .handle((done, error) -> null)
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(pending).allMatch(CompletableFuture::isCompletedExceptionally);
      assertThat(pending.get(pending.size() - 1))
          .failsWithin(Duration.ZERO)
          .withThrowableThat()
          .withCauseInstanceOf(IllegalStateException.class)
          .withMessageContaining("closed");
    } finally {
      provider.release(other);
    }
  }

  static class WaitingLedger {
    @DistributedLock(name = "waiting", key = "#account", waitTimeout = "10s")
    String post(String account) {
      return account;
    }
  }

  @Test
  void preparedCallReportsABadKeyWhenPrepared() {
    try (Locksmith locksmith = engine(ReleaseDeferral.NONE)) {
      Method post = Calls.method(Ledger.class, "post");
      assertThatThrownBy(() -> locksmith.prepare(invocation(post, new Object[] {null})))
          .isInstanceOf(LockKeyException.class);
    }
  }

  private static LockedInvocation invocation(Method method, @Nullable Object... args) {
    return Calls.invocation(
        method,
        method.getDeclaringClass(),
        args,
        () -> {
          throw new AssertionError("not called");
        });
  }
}
