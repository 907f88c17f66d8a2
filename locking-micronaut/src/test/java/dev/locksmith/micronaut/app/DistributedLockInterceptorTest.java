package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.micronaut.DistributedLockInterceptor;
import dev.locksmith.tcp.server.LockServer;
import io.micronaut.aop.InterceptPhase;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/** Every busy policy and return type through a real context and the in-process TCP lock server. */
@MicronautTest(environments = "ledger")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedLockInterceptorTest implements TestPropertyProvider {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private LockServer server;

  @Inject Ledger ledger;
  @Inject Locksmith locksmith;

  @Override
  public Map<String, String> getProperties() {
    server = LockServer.builder().port(0).build();
    int port;
    try {
      port = server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of("locksmith.url", "tcp://127.0.0.1:" + port);
  }

  @AfterAll
  void stop() {
    pool.shutdownNow();
    server.close();
  }

  @Test
  void failPolicyRefusesTheSameKeyWhileHeldAndKeysComeFromParameterNames() throws Exception {
    Gate gate = new Gate();
    Future<String> holder = pool.submit(() -> ledger.transfer("acct-1", gate));
    gate.awaitEntered();

    assertThatThrownBy(() -> ledger.transfer("acct-1", Gate.opened()))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("ledger:acct-1");
    assertThat(ledger.transfer("acct-2", Gate.opened())).isEqualTo("ledger:acct-2");

    gate.open();
    assertThat(holder.get(20, TimeUnit.SECONDS)).isEqualTo("ledger:acct-1");
    assertThat(ledger.transfer("acct-1", Gate.opened())).isEqualTo("ledger:acct-1");
  }

  @Test
  void skipPolicyReturnsNullOrEmptyOptionalWhileHeld() throws Exception {
    Gate gate = new Gate();
    Future<String> holder = pool.submit(() -> ledger.skipping(gate));
    gate.awaitEntered();

    assertThat(ledger.skipping(Gate.opened())).isNull();
    assertThat(ledger.skippingOptional()).isEqualTo(Optional.empty());

    gate.open();
    assertThat(holder.get(20, TimeUnit.SECONDS)).isEqualTo("ran");
    assertThat(ledger.skippingOptional()).contains("ran");
  }

  @Test
  void waitPolicyTimesOutOrGetsTheLockWhenReleased() throws Exception {
    Gate gate = new Gate();
    Future<String> holder = pool.submit(() -> ledger.waitBriefly(gate));
    gate.awaitEntered();

    assertThatThrownBy(() -> ledger.waitBriefly(Gate.opened()))
        .isInstanceOf(LockTimeoutException.class);
    Future<String> waiter = pool.submit(ledger::waitLong);
    assertThat(waiter).isNotDone();

    gate.open();
    assertThat(holder.get(20, TimeUnit.SECONDS)).isEqualTo("ran");
    assertThat(waiter.get(20, TimeUnit.SECONDS)).isEqualTo("waited");
  }

  @Test
  void completionStageHoldsTheLockUntilItCompletes() throws Exception {
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletableFuture<String> first = ledger.stage(work);

    CompletableFuture<String> refused = ledger.stage(CompletableFuture.completedFuture("x"));
    assertThatThrownBy(() -> refused.get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(LockBusyException.class);

    work.complete("done");
    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("done!");
    assertThat(ledger.stage(CompletableFuture.completedFuture("again")).get(20, TimeUnit.SECONDS))
        .isEqualTo("again!");
  }

  @Test
  void monoTakesTheLockOnSubscribeAndReleasesItOnCompletion() {
    Sinks.One<String> work = Sinks.one();
    Mono<String> first = ledger.mono(work.asMono());
    assertThat(isFree("mono")).as("nothing is taken before subscription").isTrue();

    CompletableFuture<String> running = first.toFuture();
    await().atMost(TIMEOUT).until(() -> !isFree("mono"));
    StepVerifier.create(ledger.mono(Mono.just("x")))
        .expectError(LockBusyException.class)
        .verify(TIMEOUT);

    work.tryEmitValue("done");
    assertThat(running.join()).isEqualTo("done!");
    await().atMost(TIMEOUT).until(() -> isFree("mono"));
    StepVerifier.create(ledger.mono(Mono.just("again"))).expectNext("again!").verifyComplete();
  }

  @Test
  void fluxIsSkippedAsEmptyWhileHeldAndReleasedOnCancel() {
    Sinks.Many<Integer> work = Sinks.many().unicast().onBackpressureBuffer();
    List<Integer> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    var subscription = ledger.flux(work.asFlux()).subscribe(seen::add);
    await().atMost(TIMEOUT).until(() -> !isFree("flux"));
    work.tryEmitNext(1);
    await().atMost(TIMEOUT).until(() -> seen.equals(List.of(1)));

    StepVerifier.create(ledger.flux(Flux.just(7, 8))).verifyComplete();

    subscription.dispose();
    await().atMost(TIMEOUT).until(() -> isFree("flux"));
    StepVerifier.create(ledger.flux(Flux.just(7, 8))).expectNext(7, 8).verifyComplete();
  }

  @Test
  void checkedExceptionsPassThroughUnchangedAndReleaseTheLock() {
    assertThatThrownBy(ledger::failing).isInstanceOf(IOException.class).hasMessage("disk on fire");
    assertThat(isFree("failing")).isTrue();
  }

  @Test
  void asyncMethodsHoldTheLockWhileTheyRunOnTheExecutor() throws Exception {
    Gate gate = new Gate();
    ledger.async(gate);
    gate.awaitEntered();
    assertThat(ledger.asyncLease.get().lockId()).isEqualTo("async");
    assertThat(isFree("async")).as("held while the @Async body runs").isFalse();

    gate.open();
    await().atMost(TIMEOUT).until(() -> isFree("async"));
  }

  @Test
  void anAnnotationStandingForDistributedLockIsIntercepted() throws Exception {
    Gate gate = new Gate();
    Future<String> holder = pool.submit(() -> ledger.nightly(gate));
    gate.awaitEntered();
    assertThatThrownBy(() -> ledger.nightly(Gate.opened())).isInstanceOf(LockBusyException.class);
    gate.open();
    assertThat(holder.get(20, TimeUnit.SECONDS)).isEqualTo("nightly");
  }

  @Test
  void theInterceptorSitsInsideAsyncAndOutsideTransactions() {
    assertThat(DistributedLockInterceptor.ORDER)
        .isGreaterThan(InterceptPhase.ASYNC.getPosition())
        .isLessThan(InterceptPhase.TRANSACTION.getPosition());
  }

  /** Reads the lock's holder from the provider without taking it, so nothing races the test. */
  private boolean isFree(String name) {
    return locksmith.providers().get("").status(name).currentHolder().isEmpty();
  }
}
