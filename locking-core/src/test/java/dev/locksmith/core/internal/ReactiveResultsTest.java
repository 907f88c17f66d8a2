package dev.locksmith.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.ConcatKeys;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/** Holding a lock over Mono and Flux results, as every integration does through core. */
class ReactiveResultsTest {
  private static final Duration BOUND = Duration.ofSeconds(5);

  private final MemoryLockProvider provider = MemoryLockProvider.isolated();
  private final Locksmith locksmith =
      Locksmith.builder().keyLanguage(ConcatKeys.LANGUAGE).defaultProvider(provider).build();

  @AfterEach
  void close() {
    locksmith.close();
  }

  static class Reports {
    @DistributedLock(name = "report", key = "#id", onBusy = OnBusy.SKIP)
    Mono<String> skip(String id) {
      throw new AssertionError("run through the test's calls");
    }

    @DistributedLock(name = "report", key = "#id", onBusy = OnBusy.FAIL)
    Flux<String> fail(String id) {
      throw new AssertionError("run through the test's calls");
    }

    @DistributedLock(name = "report", key = "#id", waitTimeout = "10s")
    Mono<String> await(String id) {
      throw new AssertionError("run through the test's calls");
    }

    @DistributedLock(name = "report", key = "#ids", onBusy = OnBusy.FAIL)
    Mono<String> failAll(List<String> ids) {
      throw new AssertionError("run through the test's calls");
    }

    @DistributedLock(name = "report", key = "#ids", waitTimeout = "10s")
    Mono<String> awaitAll(List<String> ids) {
      throw new AssertionError("run through the test's calls");
    }
  }

  @Test
  void monoTakesTheLockOnSubscribeHoldsItWhileTheResultRunsAndReleasesItOnCompletion() {
    Sinks.One<String> work = Sinks.one();
    AtomicInteger runs = new AtomicInteger();
    Mono<Object> result =
        ReactiveResults.mono(() -> call("skip", "r-1", () -> counted(runs, work.asMono())));
    assertThat(held("report:r-1")).as("nothing taken before subscription").isFalse();
    assertThat(runs).as("nothing run before subscription").hasValue(0);

    List<Object> seen = new CopyOnWriteArrayList<>();
    result.subscribe(seen::add);
    Awaitility.await().atMost(BOUND).until(() -> runs.get() == 1);
    assertThat(held("report:r-1")).as("held while the result runs").isTrue();

    work.tryEmitValue("done");
    // The value is passed on once the release has run.
    Awaitility.await().atMost(BOUND).until(() -> !seen.isEmpty());
    assertThat(seen).containsExactly("done");
    assertThat(held("report:r-1")).as("released before the value is passed on").isFalse();
  }

  @Test
  void theMethodRunsAsTheLeasesHolderSoANestedCallOnItsLockReentersIt() {
    // The method ran on an acquiring thread that did not know it held the lease: Locks.current()
    // found none, and a nested call on the same lock was refused by the call's own lease.
    Mono<Object> result =
        ReactiveResults.mono(
            () ->
                call(
                    "skip",
                    "r-20",
                    () -> {
                      long token = Locks.current().fencingToken();
                      Long nested =
                          locksmith.call(
                              LockOptions.named("report").withKey("r-20").withOnBusy(OnBusy.FAIL),
                              () -> Locks.current().fencingToken());
                      return Mono.just(token + "/" + nested);
                    }));

    String tokens = (String) result.block(BOUND);
    assertThat(tokens).isNotNull();
    String[] parts = tokens.split("/");
    assertThat(parts[1]).as("the nested call's token, the lease's").isEqualTo(parts[0]);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-20"));
  }

  @Test
  void aSkippedCallCompletesEmptyWithoutRunningTheMethod() {
    var other = provider.tryAcquire(LockRequest.of("report:r-2", Duration.ofSeconds(30)));
    assertThat(other).isPresent();
    AtomicInteger runs = new AtomicInteger();

    assertThat(
            ReactiveResults.mono(() -> call("skip", "r-2", () -> counted(runs, Mono.just("x"))))
                .blockOptional(BOUND))
        .isEmpty();
    assertThat(runs).hasValue(0);
    assertThat(provider.status("report:r-2").currentHolder()).isPresent();
  }

  @Test
  void aBusyLockUnderFailIsAnErrorSignal() {
    assertThat(provider.tryAcquire(LockRequest.of("report:r-3", Duration.ofSeconds(30))))
        .isPresent();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                ReactiveResults.flux(() -> call("fail", "r-3", () -> counted(runs, Flux.just("x"))))
                    .blockLast(BOUND))
        .isInstanceOf(LockBusyException.class);
    assertThat(runs).hasValue(0);
  }

  @Test
  void whatTheMethodThrowsIsAnErrorSignalAndTheLockIsReleased() {
    IOException thrown = new IOException("disk full");
    assertThatThrownBy(
            () ->
                ReactiveResults.mono(
                        () ->
                            call(
                                "skip",
                                "r-4",
                                () -> {
                                  throw thrown;
                                }))
                    .block(BOUND))
        .hasCause(thrown);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-4"));
  }

  @Test
  void anErrorOfThePublisherReleasesTheLock() {
    IllegalStateException failure = new IllegalStateException("broken");
    assertThatThrownBy(
            () ->
                ReactiveResults.flux(() -> call("fail", "r-5", () -> Flux.error(failure)))
                    .blockLast(BOUND))
        .isSameAs(failure);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-5"));
  }

  @Test
  void cancellingTheSubscriptionReleasesTheLock() {
    AtomicInteger runs = new AtomicInteger();
    Disposable subscription =
        ReactiveResults.flux(() -> call("fail", "r-6", () -> counted(runs, Flux.never())))
            .subscribe();
    Awaitility.await().atMost(BOUND).until(() -> runs.get() == 1);
    assertThat(held("report:r-6")).isTrue();

    subscription.dispose();
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-6"));
  }

  @Test
  void aLeaseGrantedAfterTheSubscriberCancelledIsReleased() {
    var other =
        provider.tryAcquire(LockRequest.of("report:r-7", Duration.ofSeconds(30))).orElseThrow();
    AtomicInteger runs = new AtomicInteger();
    Disposable subscription =
        ReactiveResults.mono(() -> call("await", "r-7", () -> counted(runs, Mono.just("x"))))
            .subscribe();
    Awaitility.await().atMost(BOUND).until(() -> provider.status("report:r-7").waiters() == 1);

    subscription.dispose();
    provider.release(other); // the waiter is granted after its subscriber went away
    Awaitility.await()
        .atMost(BOUND)
        .until(
            () ->
                provider
                    .tryAcquire(LockRequest.of("report:r-7", Duration.ofSeconds(1)))
                    .isPresent());
    assertThat(runs).as("the method never ran").hasValue(0);
  }

  @Test
  void aCancelledSubscriptionStopsItsWaitAtOnce() {
    var other =
        provider.tryAcquire(LockRequest.of("report:r-12", Duration.ofSeconds(30))).orElseThrow();
    AtomicInteger runs = new AtomicInteger();
    Disposable subscription =
        ReactiveResults.mono(() -> call("await", "r-12", () -> counted(runs, Mono.just("x"))))
            .subscribe();
    Awaitility.await().atMost(BOUND).until(() -> provider.status("report:r-12").waiters() == 1);

    subscription.dispose();
    Awaitility.await()
        .alias("the wait ends with its subscriber, not at its 10 s waitTimeout")
        .atMost(BOUND)
        .until(() -> provider.status("report:r-12").waiters() == 0);
    assertThat(provider.release(other)).isTrue();
    assertThat(provider.tryAcquire(LockRequest.of("report:r-12", Duration.ofSeconds(1))))
        .as("nobody took it after the holder let go")
        .isPresent();
    assertThat(runs).as("the method never ran").hasValue(0);
  }

  @Test
  void everySubscriptionRunsTheMethodAnewUnderItsOwnLease() {
    AtomicInteger made = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    Flux<Object> result =
        ReactiveResults.flux(
            () -> {
              made.incrementAndGet();
              return call("fail", "r-8", () -> counted(runs, Flux.just(1, 2)));
            });

    assertThat(result.collectList().block(BOUND)).containsExactly(1, 2);
    assertThat(result.collectList().block(BOUND)).containsExactly(1, 2);
    assertThat(made).hasValue(2);
    assertThat(runs).hasValue(2);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-8"));
  }

  @Test
  void aNullResultIsEmptyAndAMonoKeepsTheFirstElementOnly() {
    assertThat(
            ReactiveResults.flux(() -> call("fail", "r-9", () -> null)).collectList().block(BOUND))
        .isEmpty();
    assertThat(ReactiveResults.mono(() -> call("fail", "r-9", () -> Flux.just(1, 2))).block(BOUND))
        .isEqualTo(1);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-9"));
  }

  @Test
  void holdAnswersInTheDeclaredShapeForMonoAndFluxOnly() {
    assertThat(ReactiveReturns.hold(Mono.class, () -> call("skip", "r-10", Mono::empty)))
        .isInstanceOf(Mono.class);
    assertThat(ReactiveReturns.hold(Flux.class, () -> call("skip", "r-10", Flux::empty)))
        .isInstanceOf(Flux.class);
    assertThatThrownBy(
            () -> ReactiveReturns.hold(Publisher.class, () -> call("skip", "r-10", Flux::empty)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("org.reactivestreams.Publisher is not a Reactor Mono or Flux");
  }

  @Test
  void aResultThatIsNoPublisherIsAnErrorSignalAndTheLockIsReleased() {
    assertThatThrownBy(
            () -> ReactiveResults.mono(() -> call("fail", "r-11", () -> "text")).block(BOUND))
        .isInstanceOf(ClassCastException.class);
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-11"));
  }

  @Test
  void onlyMonoAndFluxAreHeldHere() {
    assertThat(ReactiveReturns.isReactorPresent()).isTrue();
    assertThat(ReactiveReturns.isMonoOrFlux(Mono.class)).isTrue();
    assertThat(ReactiveReturns.isMonoOrFlux(Flux.class)).isTrue();
    assertThat(ReactiveReturns.isMonoOrFlux(Publisher.class)).isFalse();
    assertThat(ReactiveReturns.isMonoOrFlux(String.class)).isFalse();
  }

  @Test
  void waitersOutnumberingReactorsBlockingThreadsNeitherStallTheReleaseNorTheHoldersWork()
      throws Exception {
    // Reactor's bounded-elastic pool has a fixed number of threads; waits that block every one of
    // them queued the holder's release (and any work it ran there) behind themselves until their
    // waitTimeout.
    int waiters = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 2;
    Sinks.One<String> work = Sinks.one();
    CompletableFuture<Object> holder =
        ReactiveResults.mono(() -> call("await", "r-13", work::asMono)).toFuture();
    Awaitility.await().atMost(BOUND).until(() -> held("report:r-13"));
    List<CompletableFuture<Object>> waiting = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      waiting.add(
          ReactiveResults.mono(
                  () ->
                      call(
                          "await",
                          "r-13",
                          () ->
                              Mono.fromCallable(() -> "blocking work")
                                  .subscribeOn(Schedulers.boundedElastic())))
              .toFuture());
    }
    // This process's waiters queue behind one remote wait, so count the blocked threads instead.
    Awaitility.await()
        .atMost(BOUND)
        .until(() -> threadsWaitingIn("SharedWaits") >= Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE);

    work.tryEmitValue("done");
    assertThat(holder.get(BOUND.toMillis(), TimeUnit.MILLISECONDS))
        .as("the holder's release ran while every waiter still waited")
        .isEqualTo("done");
    for (CompletableFuture<Object> waiter : waiting) {
      assertThat(waiter.get(BOUND.toMillis(), TimeUnit.MILLISECONDS))
          .as("each waiter took the lock in turn, well inside its 10 s waitTimeout")
          .isEqualTo("blocking work");
    }
  }

  @Test
  void aMonoSubscribedUnderTheLockItsThreadHoldsReentersItAndHoldsItUntilItEnds() throws Exception {
    Sinks.One<String> work = Sinks.one();
    AtomicReference<CompletableFuture<Object>> inner = new AtomicReference<>();
    long outerToken =
        locksmith.call(
            LockOptions.named("report").withKey("r-14"),
            () -> {
              // Under FAIL, a second lease on the lock the thread holds was refused as busy.
              inner.set(ReactiveResults.mono(() -> call("fail", "r-14", work::asMono)).toFuture());
              return Locks.current().fencingToken();
            });
    assertThat(inner.get()).as("not refused as busy").isNotCompletedExceptionally();
    assertThat(provider.status("report:r-14").currentHolder())
        .as("still held by the outer lease, for the inner result that has not ended")
        .hasValueSatisfying(holder -> assertThat(holder.fencingToken()).isEqualTo(outerToken));

    work.tryEmitValue("inner");
    assertThat(inner.get().get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("inner");
    Awaitility.await().atMost(BOUND).until(() -> !held("report:r-14"));
  }

  @Test
  void aMonoOverSeveralKeysReentersThoseItsThreadHoldsAndTakesOnlyTheOthers() throws Exception {
    Sinks.One<String> allHeld = Sinks.one();
    Sinks.One<String> oneHeld = Sinks.one();
    AtomicReference<CompletableFuture<Object>> inner = new AtomicReference<>();
    AtomicReference<CompletableFuture<Object>> partly = new AtomicReference<>();
    Map<String, Long> outerTokens = new ConcurrentHashMap<>();
    locksmith.run(
        LockOptions.named("report").withKeys("r-15a", "r-15b"),
        () -> {
          for (String id : List.of("report:r-15a", "report:r-15b")) {
            outerTokens.put(id, provider.status(id).currentHolder().orElseThrow().fencingToken());
          }
          // Both were taken on another thread, which does not hold the outer leases: FAIL
          // was refused as busy, and WAIT waited for this thread until its waitTimeout.
          inner.set(
              ReactiveResults.mono(
                      () -> call("failAll", List.of("r-15a", "r-15b"), allHeld::asMono))
                  .toFuture());
          partly.set(
              ReactiveResults.mono(
                      () -> call("awaitAll", List.of("r-15b", "r-15c"), oneHeld::asMono))
                  .toFuture());
        });
    assertThat(inner.get()).as("not refused as busy").isNotCompletedExceptionally();
    Awaitility.await().atMost(BOUND).until(() -> held("report:r-15c"));
    for (String id : List.of("report:r-15a", "report:r-15b")) {
      assertThat(provider.status(id).currentHolder())
          .as("%s still held by the outer lease, for the inner results that have not ended", id)
          .hasValueSatisfying(
              holder -> assertThat(holder.fencingToken()).isEqualTo(outerTokens.get(id)));
    }

    allHeld.tryEmitValue("all held");
    assertThat(inner.get().get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("all held");
    assertThat(held("report:r-15b")).as("still held for the other result").isTrue();
    oneHeld.tryEmitValue("one held");
    assertThat(partly.get().get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("one held");
    Awaitility.await()
        .atMost(BOUND)
        .until(() -> !held("report:r-15a") && !held("report:r-15b") && !held("report:r-15c"));
  }

  private ReactiveCall call(String methodName, Object id, ReactiveCall.Proceed body) {
    return ReactiveCall.of(locksmith, method(methodName), Reports.class, new Object[] {id}, body);
  }

  private static long threadsWaitingIn(String className) {
    return Thread.getAllStackTraces().values().stream()
        .filter(
            stack ->
                Arrays.stream(stack)
                    .anyMatch(frame -> frame.getClassName().endsWith("." + className)))
        .count();
  }

  private static <T> T counted(AtomicInteger runs, T result) {
    runs.incrementAndGet();
    return result;
  }

  private static Method method(String name) {
    List<Method> found = new ArrayList<>();
    for (Method m : Reports.class.getDeclaredMethods()) {
      if (m.getName().equals(name)) {
        found.add(m);
      }
    }
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  private boolean held(String lockId) {
    return provider.status(lockId).currentHolder().isPresent();
  }
}
