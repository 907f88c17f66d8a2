package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A renewal still in flight when its lease was released: whatever it answers afterwards, the lease
 * was released, so listeners hear one {@code released} and no {@code lost} after it.
 */
class RenewalAnsweredAfterReleaseTest {
  private final VirtualTicker ticker = new VirtualTicker();
  private final CountDownLatch renewStarted = new CountDownLatch(1);
  private final CountDownLatch answerRenewal = new CountDownLatch(1);
  private final RecordingListener events = new RecordingListener();

  /** Grants every lock but {@code down}, which fails as an unreachable store does. */
  private final VirtualTimeProvider provider =
      new VirtualTimeProvider(ticker, "flaky") {
        @Override
        public Optional<LeaseGrant> tryAcquire(LockRequest request) {
          if (request.lockId().equals("down")) {
            throw new LockProviderException("Connection reset");
          }
          return super.tryAcquire(request);
        }

        @Override
        public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
          calls.add("renew");
          renewStarted.countDown();
          try {
            answerRenewal.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.empty(); // the store no longer holds it
        }
      };

  @Test
  void aRenewalAnsweredAfterTheReleaseReportsNoLoss() throws Exception {
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).ticker(ticker).listener(events).build()) {
      Lease lease = locksmith.acquire(LockOptions.named("job").withTtl(Duration.ofSeconds(3)));
      ticker.advance(Duration.ofMillis(1100));
      assertThat(renewStarted.await(5, TimeUnit.SECONDS)).isTrue();
      // The store becomes unreachable: the circuit opens, so the release is skipped.
      assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("down")))
          .isInstanceOf(LockProviderException.class);
      await().atMost(Duration.ofSeconds(2)).until(() -> !locksmith.health().get(0).up());
      lease.close();
      assertThat(events.events).contains("released job");

      answerRenewal.countDown();
      // Give the renewal's answer its chance to be (wrongly) told: the keeper's thread applies it.
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !events.events.contains("lost job"));
      assertThat(events.events).containsOnlyOnce("released job").doesNotContain("lost job");
    }
  }
}
