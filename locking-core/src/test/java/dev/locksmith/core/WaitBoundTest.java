package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How late a WAIT may end, on virtual time: the engine starts every provider call on the caller's
 * thread before the wait's deadline, one at a time, so a WAIT ends by its {@code waitTimeout} plus
 * the one call in flight at the deadline, however long that call overruns; a provider failure does
 * not end it before then.
 */
class WaitBoundTest {
  private final VirtualTicker ticker = new VirtualTicker();
  private final SlowProvider provider = new SlowProvider(ticker);
  private final RecordingListener events = new RecordingListener();
  private final Locksmith locksmith =
      Locksmith.builder()
          .defaultProvider(provider)
          .ticker(ticker)
          .listener(events)
          .providerProbeInterval(Duration.ofHours(1))
          // Probed at start-up on this thread: a background start-up probe answering after a
          // failure would close the circuit again.
          .requireProvidersAtStartup(true)
          .build();

  @AfterEach
  void close() {
    locksmith.close();
  }

  private static LockOptions waitFor(String name, Duration timeout) {
    return LockOptions.named(name).withTtl(Duration.ofSeconds(4)).withWaitTimeout(timeout);
  }

  static class Reports {
    @DistributedLock(name = "queued", ttl = "4s", waitTimeout = "2s")
    String build() {
      return "built";
    }
  }

  @Test
  void aWaitTakenOnAnotherThreadCountsFromWhenItWasAskedForNotFromWhenItStarts() {
    Method build = Calls.method(Reports.class, "build");
    List<Runnable> queued = new ArrayList<>();
    CompletableFuture<@Nullable Lease> lease =
        locksmith
            .prepare(Calls.invocation(build, Reports.class, new Object[0], () -> "built"))
            .acquireAsync(queued::add);
    // Queued behind other waits on the acquiring threads for longer than its whole waitTimeout.
    ticker.advance(Duration.ofSeconds(3));
    queued.forEach(Runnable::run);
    assertThat(lease)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(LockTimeoutException.class)
        .withMessageContaining("3000 ms");
    assertThat(provider.calls).as("one last look, no second wait").hasSize(1);
    assertThat(provider.calls.get(0)).isIn("tryAcquire", "acquire 0 ms");
  }

  @Test
  void anAcquireThatOverrunsEndsTheWaitWhenItReturnsWithoutAnotherCall() {
    // The client gives up 4.8 s after the wait should have ended.
    provider.acquireTakes = timeout -> timeout.plus(Duration.ofMillis(4800));
    LockTimeoutException timedOut =
        catchThrowableOfType(
            LockTimeoutException.class,
            () -> locksmith.acquire(waitFor("report", Duration.ofSeconds(10))));
    assertThat(timedOut).hasMessageContaining("'report'");
    assertThat(provider.calls).containsExactly("acquire 10000 ms");
    assertThat(provider.elapsed()).isEqualTo(Duration.ofMillis(14_800));
    assertThat(events.events).containsExactly("timedOut report");
  }

  @Test
  void aLateGrantArrivingAfterTheDeadlineIsNotRenewedOnTheCallersThread() {
    provider.acquireTakes = timeout -> timeout.plus(Duration.ofSeconds(3));
    provider.grants = true;
    assertThatThrownBy(() -> locksmith.acquire(waitFor("late", Duration.ofSeconds(2))))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(provider.elapsed()).isEqualTo(Duration.ofSeconds(5));
    // The grant is freed in the background, off the caller's thread.
    await().atMost(Duration.ofSeconds(2)).until(() -> provider.calls.contains("release 1"));
    assertThat(provider.calls).containsExactly("acquire 2000 ms", "release 1");
  }

  @Test
  void noProviderCallStartsAfterTheDeadline() {
    // A late grant well within the wait, whose renewal is refused and whose release then runs
    // past the deadline: the wait ends there instead of asking again.
    provider.acquireTakes = timeout -> Duration.ofMillis(500);
    provider.grants = true;
    provider.releaseTakes = Duration.ofMillis(1700);
    assertThatThrownBy(() -> locksmith.acquire(waitFor("busy", Duration.ofSeconds(2))))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(provider.calls).containsExactly("acquire 2000 ms", "renew", "release 1");
    assertThat(provider.elapsed()).isEqualTo(Duration.ofMillis(2200));
  }

  @Test
  void aSetOfKeysAsksForNoKeyOnceItsSharedWaitHasRunOut() {
    // Key a's wait overran the deadline and was granted; key b was then still asked (with 0 ms),
    // a second call past the deadline, and one more for each key after it.
    provider.acquireTakes = timeout -> timeout.plus(Duration.ofMillis(300));
    provider.freshGrant = request -> request.lockId().endsWith(":a");
    assertThatThrownBy(
            () -> locksmith.acquire(waitFor("set", Duration.ofSeconds(2)).withKeys("a", "b", "c")))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(provider.elapsed()).isEqualTo(Duration.ofMillis(2300));
    await().atMost(Duration.ofSeconds(2)).until(() -> provider.calls.contains("release 1"));
    assertThat(provider.calls).containsExactly("tryAcquire", "acquire 2000 ms", "release 1");
    assertThat(events.events).containsExactly("acquired set:a", "timedOut set:b", "released set:a");
  }

  @Test
  void aLateGrantWhoseRenewalRunsPastTheDeadlineEndsTheWaitAsATimeout() {
    // A late grant within the wait, whose renewal is refused after the deadline: the wait ran out.
    provider.acquireTakes = timeout -> Duration.ofMillis(1500);
    provider.grants = true;
    provider.renewTakes = Duration.ofMillis(700);
    assertThatThrownBy(() -> locksmith.acquire(waitFor("renewed-late", Duration.ofSeconds(2))))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(events.events).containsExactly("timedOut renewed-late");
    await().atMost(Duration.ofSeconds(2)).until(() -> provider.calls.contains("release 1"));
  }

  @Test
  void aProviderFailingMidWaitIsNotAskedAgainWhileItsCircuitIsOpenAndTheWaitEndsAtItsTimeout()
      throws Exception {
    provider.acquireTakes = timeout -> Duration.ofSeconds(3);
    provider.failure = new LockProviderException("Connection reset by peer");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Throwable> waiter =
          pool.submit(
              () ->
                  catchThrowable(() -> locksmith.acquire(waitFor("job", Duration.ofSeconds(10)))));
      await().atMost(Duration.ofSeconds(5)).until(() -> !locksmith.health().get(0).up());
      // The wait rides through the outage; its pauses are real time, its deadline virtual time.
      assertThat(waiter).isNotDone();
      ticker.advance(Duration.ofSeconds(8));
      Throwable thrown = waiter.get(5, TimeUnit.SECONDS);

      assertThat(thrown)
          .isInstanceOf(LockTimeoutException.class)
          .hasMessage(
              "Timed out after 11000 ms waiting for lock 'job': lock provider default (slow) did"
                  + " not answer (LockProviderException: Connection reset by peer); a WAIT waits"
                  + " through an outage until its timeout")
          .hasCauseInstanceOf(LockProviderException.class);
      assertThat(provider.calls)
          .as("not asked again while its circuit is open")
          .containsExactly("acquire 10000 ms");
      assertThat(events.events).containsExactly("timedOut job");
    } finally {
      pool.shutdownNow();
    }

    assertThatThrownBy(
            () -> locksmith.acquire(waitFor("job", Duration.ZERO).withOnBusy(OnBusy.FAIL)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("is down since");
    assertThat(provider.calls).hasSize(1);
  }

  /**
   * A provider on virtual time whose calls take as long as the test says: each moves the ticker on
   * by its duration before it answers. Without a grant, acquire answers that the lock stayed busy.
   */
  static final class SlowProvider extends VirtualTimeProvider {
    private final long start;
    volatile java.util.function.UnaryOperator<Duration> acquireTakes = timeout -> timeout;
    volatile boolean grants;

    /** Requests granted as answered, for their whole ttl from then. */
    volatile java.util.function.Predicate<LockRequest> freshGrant = request -> false;

    volatile Duration releaseTakes = Duration.ZERO;
    volatile Duration renewTakes = Duration.ZERO;
    volatile @org.jspecify.annotations.Nullable RuntimeException failure;

    SlowProvider(VirtualTicker ticker) {
      super(ticker, "slow");
      this.start = ticker.read();
    }

    Duration elapsed() {
      return Duration.ofNanos(ticker.read() - start);
    }

    @Override
    public Optional<LeaseGrant> tryAcquire(LockRequest request) {
      calls.add("tryAcquire");
      return Optional.empty();
    }

    @Override
    public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) {
      calls.add("acquire " + timeout.toMillis() + " ms");
      long sent = ticker.read();
      ticker.advance(acquireTakes.apply(timeout));
      RuntimeException error = failure;
      if (error != null) {
        throw error;
      }
      if (freshGrant.test(request)) {
        return Optional.of(grant(request, ticker.read() + request.ttl().toNanos()));
      }
      if (!grants) {
        return Optional.empty();
      }
      // Granted as the request arrived, so the deadline runs from the send time: a grant that
      // took long comes back late, with less than half its ttl left.
      long deadline = Math.min(sent + request.ttl().toNanos(), ticker.read() + 1_000_000);
      return Optional.of(grant(request, deadline));
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      calls.add("renew");
      ticker.advance(renewTakes);
      return Optional.empty();
    }

    @Override
    void releasing() {
      ticker.advance(releaseTakes);
    }
  }
}
