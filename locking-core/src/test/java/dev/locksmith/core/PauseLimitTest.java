package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
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
  private static final class SessionStore extends VirtualTimeProvider {
    private final @Nullable Duration pauseLimit;

    SessionStore(VirtualTicker ticker, @Nullable Duration pauseLimit) {
      super(ticker, "session store");
      this.pauseLimit = pauseLimit;
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      return Optional.of(lease.renewed(ttl, ticker.read() + ttl.toNanos()));
    }

    @Override
    public Optional<Duration> pauseLimit() {
      return Optional.ofNullable(pauseLimit);
    }
  }

  private Locksmith engine(@Nullable Duration pauseLimit) {
    Locksmith engine =
        Locksmith.builder()
            .defaultProvider(new SessionStore(ticker, pauseLimit))
            .ticker(ticker)
            .listener(events)
            .build();
    locksmith = engine;
    return engine;
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
}
