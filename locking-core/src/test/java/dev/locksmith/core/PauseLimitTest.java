package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lease whose provider names a pause limit (a ZooKeeper session's, say) is lost from the moment
 * this process runs again after standing still for longer, though its ttl has not run out: the
 * store may have ended it meanwhile, and no report of that can reach a stopped process. Virtual
 * time stands for the stop: the ticker jumps while the keeper's sweep has not run.
 */
class PauseLimitTest {
  private static final Duration PAUSE_LIMIT = Duration.ofSeconds(2);

  private final VirtualTicker ticker = new VirtualTicker();
  private final RecordingListener events = new RecordingListener();
  private @Nullable Locksmith locksmith;

  /** Grants every request for its ttl and renews it; ends no lease of its own accord. */
  private static class SessionStore extends VirtualTimeProvider {
    private final @Nullable Duration pauseLimit;

    SessionStore(VirtualTicker ticker, @Nullable Duration pauseLimit) {
      super(ticker, "session store");
      this.pauseLimit = pauseLimit;
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      calls.add("renew " + lease.lockId());
      return Optional.of(lease.renewed(ttl, ticker.read() + ttl.toNanos()));
    }

    @Override
    public Optional<Duration> pauseLimit() {
      return Optional.ofNullable(pauseLimit);
    }
  }

  /**
   * Grants every request as its call starts (the lease runs from then on the store), and answers
   * only once {@code inCall} has run: what happens while the grant's answer is on its way.
   */
  private static final class AnsweringLate extends SessionStore {
    private final Runnable inCall;

    AnsweringLate(VirtualTicker ticker, Runnable inCall) {
      super(ticker, PAUSE_LIMIT);
      this.inCall = inCall;
    }

    @Override
    public Optional<LeaseGrant> tryAcquire(LockRequest request) {
      long sent = ticker.read();
      inCall.run();
      return Optional.of(grant(request, sent + request.ttl().toNanos()));
    }
  }

  private Locksmith engine(@Nullable Duration pauseLimit) {
    return engine(new SessionStore(ticker, pauseLimit), new SessionStore(ticker, null), events);
  }

  /** An engine over {@code store} by default, and {@code plain} by that name. */
  private Locksmith engine(SessionStore store, SessionStore plain, LockListener... listeners) {
    LocksmithBuilder builder =
        Locksmith.builder().defaultProvider(store).provider("plain", plain).ticker(ticker);
    for (LockListener listener : listeners) {
      builder.listener(listener);
    }
    Locksmith engine = builder.build();
    locksmith = engine;
    return engine;
  }

  /** Stands this process still for {@code stop} as soon as {@code lockId} is acquired. */
  private static LockListener stopOnAcquiring(String lockId, Runnable stop) {
    return new LockListener() {
      @Override
      public void acquired(LockEvent event, Duration waited) {
        if (event.lockId().equals(lockId)) {
          stop.run();
        }
      }
    };
  }

  /** Moves virtual time on, then waits until the engine's keeper has swept at the new time. */
  private void advanceThenAwaitSweep(Duration step) {
    ticker.advance(step);
    long now = ticker.read();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> locksmith != null && locksmith.keeper().lastSweep() == now);
  }

  @AfterEach
  void close() {
    if (locksmith != null) {
      locksmith.close();
    }
  }

  private static LockOptions longLease(String name) {
    return LockOptions.named(name).withTtl(Duration.ofSeconds(60)).withRenew(false);
  }

  @Test
  void aStopPastThePauseLimitEndsTheLeaseBeforeTheKeeperRunsAgain() throws Exception {
    Lease lease = engine(PAUSE_LIMIT).acquire(longLease("stopped"));
    assertThat(lease.isValid()).isTrue();

    ticker.advance(Duration.ofSeconds(3));

    // The first check after the stop already says so, whether or not the keeper has swept since.
    assertThat(lease.isValid()).isFalse();
    assertThat(lease.timeLeft()).isZero();
    assertThatThrownBy(lease::checkValid)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("this process stood still for 3000 ms")
        .hasMessageContaining("longer than the 2000 ms after which session store may end");
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("lost stopped"));
    lease.close();
  }

  @Test
  void aStopWithinThePauseLimitLeavesTheLeaseHeld() throws Exception {
    Lease lease = engine(PAUSE_LIMIT).acquire(longLease("short-stop"));

    ticker.advance(Duration.ofMillis(1900));

    assertThat(lease.isValid()).isTrue();
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(() -> lease.isValid() && !events.events.contains("lost short-stop"));
    lease.checkValid();
    lease.close();
  }

  @Test
  void aProviderWithoutAPauseLimitKeepsItsLeaseThroughAStopShorterThanTheTtl() throws Exception {
    Lease lease = engine(null).acquire(longLease("no-limit"));

    ticker.advance(Duration.ofSeconds(30));

    assertThat(lease.isValid()).isTrue();
    assertThat(lease.timeLeft()).isEqualTo(Duration.ofSeconds(30));
    lease.close();
  }

  @Test
  void aStopBeforeTheGrantDoesNotCountAgainstTheLease() throws Exception {
    Locksmith engine = engine(PAUSE_LIMIT);
    Lease first = engine.acquire(longLease("held-through"));

    // The keeper stands still with one lease held; a second lease is granted after the stop.
    ticker.advance(Duration.ofSeconds(3));
    Lease second = engine.acquire(longLease("granted-after"));

    assertThat(first.isValid()).isFalse();
    assertThat(second.isValid()).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("lost held-through"));
    assertThat(second.isValid()).isTrue();
    assertThat(events.events).doesNotContain("lost granted-after");
    first.close();
    second.close();
  }

  @Test
  void aStopInsideTheProviderCallAfterTheGrantEndsTheLease() throws Exception {
    // The store granted the lease, then this process stood still before the answer came back: the
    // store may have ended the lease meanwhile, as after any other stop past the limit.
    Locksmith engine =
        engine(
            new AnsweringLate(ticker, () -> ticker.advance(Duration.ofSeconds(3))),
            new SessionStore(ticker, null),
            events);

    Lease lease = engine.acquire(longLease("stopped-in-call"));

    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).hasMessageContaining("stood still for 3000 ms");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.events.contains("lost stopped-in-call"));
    lease.close();
  }

  @Test
  void aStopInsideTheCallStillCountsAfterTheSweeperWasHeldUpTenTimesBeforeTheAnswer()
      throws Exception {
    // After the stop, ten gaps between sweeps long enough to be remembered as stops too (a starved
    // machine): the stop that matters must not have been pushed out of the keeper's memory.
    Runnable stopThenHeldUp =
        () -> {
          advanceThenAwaitSweep(Duration.ofSeconds(3));
          for (int gap = 0; gap < 10; gap++) {
            advanceThenAwaitSweep(Duration.ofMillis(60));
          }
        };
    Locksmith engine =
        engine(new AnsweringLate(ticker, stopThenHeldUp), new SessionStore(ticker, null), events);

    Lease lease = engine.acquire(longLease("held-up").withOnBusy(OnBusy.FAIL));

    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).hasMessageContaining("stood still for 3000 ms");
    lease.close();
  }

  @Test
  void aLongProviderCallInWhichThisProcessRanDoesNotCountAsAStop() throws Exception {
    // The call lasts 3 s after the grant (a wait the store counts the lease through), in steps of
    // 100 ms, and the keeper sweeps after each: this process ran all along, no lease being watched.
    Runnable running =
        () -> {
          for (int step = 0; step < 30; step++) {
            advanceThenAwaitSweep(Duration.ofMillis(100));
          }
        };
    Locksmith engine =
        engine(new AnsweringLate(ticker, running), new SessionStore(ticker, null), events);

    // FAIL: a failure in the call is not waited through.
    Lease lease = engine.acquire(longLease("long-call").withOnBusy(OnBusy.FAIL));

    assertThat(lease.isValid()).isTrue();
    assertThat(lease.timeLeft()).isEqualTo(Duration.ofSeconds(57));
    lease.checkValid();
    lease.close();
    assertThat(events.events).doesNotContain("lost long-call");
  }

  @Test
  void aStopBetweenTheGrantAndTheKeepersFirstSweepEndsTheLease() throws Exception {
    // The stop comes after the provider call returned and before the lease is watched.
    Locksmith engine =
        engine(
            new SessionStore(ticker, PAUSE_LIMIT),
            new SessionStore(ticker, null),
            events,
            stopOnAcquiring("stopped-early", () -> ticker.advance(Duration.ofSeconds(3))));

    Lease lease = engine.acquire(longLease("stopped-early"));

    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).hasMessageContaining("stood still for 3000 ms");
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("lost stopped-early"));
    lease.close();
  }

  @Test
  void aStopASweepSawEndBeforeTheLeaseWasWatchedEndsTheLease() throws Exception {
    // A lease on a provider without a limit keeps the keeper sweeping through the stop; its
    // renewal, due after the stop, is sent only once the sweep that saw the stop end is over.
    SessionStore plain = new SessionStore(ticker, null);
    Runnable stopUntilSwept =
        () -> {
          ticker.advance(Duration.ofSeconds(3));
          await().atMost(Duration.ofSeconds(5)).until(() -> plain.calls.contains("renew kept"));
        };
    Locksmith engine =
        engine(
            new SessionStore(ticker, PAUSE_LIMIT),
            plain,
            events,
            stopOnAcquiring("watched-late", stopUntilSwept));
    Lease kept =
        engine.acquire(
            LockOptions.named("kept").withProvider("plain").withTtl(Duration.ofSeconds(4)));

    Lease lease = engine.acquire(longLease("watched-late"));

    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).hasMessageContaining("stood still for 3000 ms");
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("lost watched-late"));
    assertThat(kept.isValid()).isTrue();
    lease.close();
    kept.close();
  }

  @Test
  void aLeaseClosedAfterAStopIsReportedLostAndReleasedWithoutItsMinimumHold() throws Exception {
    SessionStore store = new SessionStore(ticker, PAUSE_LIMIT);
    Lease lease =
        engine(store, new SessionStore(ticker, null), events)
            .acquire(longLease("closed-after-stop").withMinHold(Duration.ofMinutes(1)));

    ticker.advance(Duration.ofSeconds(3));
    lease.close();

    // Lost before it is released, whether the holder or the keeper sees the stop first; the store
    // may have let another owner in, so the lock is released rather than held on for the hold.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.events.contains("released closed-after-stop"));
    assertThat(events.events)
        .containsExactly(
            "acquired closed-after-stop", "lost closed-after-stop", "released closed-after-stop");
    assertThat(store.calls).containsExactly("release 1");
  }

  @Test
  void aLeaseKeptPastTheEnginesCloseIsNotTakenForStopped() throws Exception {
    Locksmith engine = engine(PAUSE_LIMIT);
    Lease lease = engine.acquire(longLease("outlives-engine"));
    engine.close();

    // The keeper no longer sweeps: that says nothing of this process, and the ttl still runs.
    ticker.advance(Duration.ofSeconds(3));

    assertThat(lease.isValid()).isTrue();
    assertThat(lease.timeLeft()).isEqualTo(Duration.ofSeconds(57));
    lease.close();
  }
}
