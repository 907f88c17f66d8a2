package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A WAIT rides through a provider outage: it keeps waiting, asking the provider again only once its
 * circuit has closed, until its wait timeout, and only then fails with the outage as the cause;
 * SKIP and FAIL keep failing fast.
 */
class WaitThroughOutageTest extends OutageFixture {
  /**
   * An engine whose start-up probe has answered, probing every 50 ms while its provider is down.
   */
  private Locksmith started() {
    return started(Duration.ofMillis(50));
  }

  /** Opens the circuit with a SKIP call, which fails fast. */
  private void goDown(Locksmith locksmith) {
    provider.down.set(true);
    assertThatThrownBy(
            () -> locksmith.run(LockOptions.named("tick").withOnBusy(OnBusy.SKIP), () -> {}))
        .isInstanceOf(LockProviderException.class);
    assertThat(locksmith.health().get(0).up()).isFalse();
  }

  private CompletableFuture<Lease> waitFor(Locksmith locksmith, LockOptions options) {
    return CompletableFuture.supplyAsync(() -> locksmith.acquire(options), pool);
  }

  @Test
  void aWaitStartedWhileTheCircuitIsOpenIsGrantedOnceTheProviderIsBack() throws Exception {
    try (Locksmith locksmith = started()) {
      goDown(locksmith);
      int reached = provider.lockCalls.get();
      CompletableFuture<Lease> waiter =
          waitFor(locksmith, LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(30)));
      // Several probes fail while it waits: the outage lasts, and the waiter keeps waiting.
      int probes = provider.statusDone.get();
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() >= probes + 3);
      assertThat(waiter).isNotDone();
      assertThat(provider.lockCalls)
          .as("a waiting caller asks nothing of a provider whose circuit is open")
          .hasValue(reached);

      provider.down.set(false);
      try (Lease lease = waiter.get(5, TimeUnit.SECONDS)) {
        assertThat(lease.isValid()).isTrue();
      }
      assertThat(provider.lockCalls)
          .as("asked again once, after a probe closed the circuit")
          .hasValue(reached + 1);
      assertThat(events.events).noneMatch(e -> e.startsWith("error job"));
    }
  }

  @Test
  void aWaitWhoseOwnCallFindsTheProviderDownWaitsAndIsGrantedWhenItIsBack() throws Exception {
    try (Locksmith locksmith = started()) {
      provider.down.set(true); // the circuit is still closed: the waiter's own call fails
      CompletableFuture<Lease> waiter =
          waitFor(locksmith, LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(5)).until(() -> !locksmith.health().get(0).up());
      int probes = provider.statusDone.get();
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() >= probes + 2);
      assertThat(waiter).isNotDone();
      assertThat(provider.lockCalls).hasValue(1);

      provider.down.set(false);
      try (Lease lease = waiter.get(5, TimeUnit.SECONDS)) {
        assertThat(lease.isValid()).isTrue();
      }
      assertThat(provider.lockCalls).hasValue(2);
    }
  }

  @Test
  void aWaitOnSeveralKeysRidesThroughTheOutageToo() throws Exception {
    try (Locksmith locksmith = started()) {
      goDown(locksmith);
      CompletableFuture<Lease> waiter =
          waitFor(
              locksmith,
              LockOptions.named("transfer")
                  .withKeys("a", "b")
                  .withWaitTimeout(Duration.ofSeconds(30)));
      int probes = provider.statusDone.get();
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() >= probes + 2);
      assertThat(waiter).isNotDone();

      provider.down.set(false);
      try (Lease lease = waiter.get(5, TimeUnit.SECONDS)) {
        assertThat(lease.isValid()).isTrue();
        assertThat(store.status("transfer:a").currentHolder().isPresent()).isTrue();
        assertThat(store.status("transfer:b").currentHolder().isPresent()).isTrue();
      }
    }
  }

  @Test
  void aWaitWhoseTimeoutPassesDuringTheOutageFailsWithTheOutageAsCause() {
    try (Locksmith locksmith = started()) {
      goDown(locksmith);
      long started = System.nanoTime();
      Throwable thrown =
          catchThrowable(
              () ->
                  locksmith.acquire(
                      LockOptions.named("job").withWaitTimeout(Duration.ofMillis(400))));
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(thrown)
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Timed out after ")
          .hasMessageContaining(
              "waiting for lock 'job': lock provider default (outage:orders) did not answer ("
                  + ONE_LINE_CAUSE
                  + ")")
          .hasMessageNotContaining("script:")
          .hasCauseInstanceOf(LockProviderException.class);
      assertThat(((LockTimeoutException) thrown).waited())
          .isGreaterThanOrEqualTo(Duration.ofMillis(400));
      assertThat(took)
          .isGreaterThanOrEqualTo(Duration.ofMillis(400))
          .isLessThan(Duration.ofSeconds(5));
      assertThat(events.events).contains("timedOut job").noneMatch(e -> e.startsWith("error job"));
    }
  }

  @Test
  void skipAndFailStillFailFastWhileTheCircuitIsOpen() {
    try (Locksmith locksmith = started()) {
      goDown(locksmith);
      for (OnBusy onBusy : new OnBusy[] {OnBusy.SKIP, OnBusy.FAIL}) {
        long started = System.nanoTime();
        assertThatThrownBy(
                () -> locksmith.run(LockOptions.named("pay").withOnBusy(onBusy), () -> {}))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("is down since");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void closingTheEngineEndsAWaitThatRidesThroughAnOutage() throws Exception {
    Locksmith locksmith = started();
    goDown(locksmith);
    CompletableFuture<Lease> waiter =
        waitFor(locksmith, LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(60)));
    int probes = provider.statusDone.get();
    await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() >= probes + 2);
    locksmith.close();
    Throwable thrown = catchThrowable(() -> waiter.get(5, TimeUnit.SECONDS));
    assertThat(thrown)
        .hasRootCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("This Locksmith is closed; it takes no more locks");
  }

  @Test
  void theBackOffDoublesFrom50MillisecondsToOneSecondWithJitter() {
    OutageBackoff backoff = new OutageBackoff();
    long[] bounds = {50, 100, 200, 400, 800, 1000, 1000, 1000};
    for (long bound : bounds) {
      long pause = backoff.nextNanos();
      assertThat(pause)
          .isBetween(
              TimeUnit.MILLISECONDS.toNanos(bound) / 2, TimeUnit.MILLISECONDS.toNanos(bound));
    }
  }
}
