package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A renewal still in flight when its lease was released: whatever it answers afterwards, the lease
 * was released, so listeners hear one {@code released} and no {@code lost} after it. And one in
 * flight when its lease was lost at its deadline, the store perhaps not answering: the holder, told
 * of the loss, closes the lease without waiting for that call (which may take the client's whole
 * timeout), and a renewal that does succeed later is freed by its own answer.
 */
class RenewalAnsweredAfterReleaseTest {
  private final VirtualTicker ticker = new VirtualTicker();
  private final CountDownLatch renewStarted = new CountDownLatch(1);
  private final CountDownLatch answerRenewal = new CountDownLatch(1);
  private final RecordingListener events = new RecordingListener();

  // Whether a renewal, once answered, renewed the lease; else the store no longer held it.
  private volatile boolean renews;

  /**
   * Grants every lock but {@code down}, which fails as an unreachable store does; a renewal waits
   * for {@link #answerRenewal}.
   */
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
          return renews
              ? Optional.of(
                  new LeaseGrant(
                      lease.lockId(),
                      lease.ownerToken(),
                      lease.fencingToken(),
                      ttl,
                      ticker.read() + ttl.toNanos()))
              : Optional.empty();
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

  @Test
  void closingALeaseLostWhileItsRenewalHangsDoesNotWaitForIt() throws Exception {
    renews = true;
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).ticker(ticker).listener(events).build()) {
      Lease lease = locksmith.acquire(LockOptions.named("job").withTtl(Duration.ofSeconds(3)));
      ticker.advance(Duration.ofMillis(1100));
      assertThat(renewStarted.await(5, TimeUnit.SECONDS)).isTrue();
      ticker.advance(Duration.ofSeconds(2));
      assertThat(lease.isValid()).as("past its deadline").isFalse();

      CompletableFuture<Void> closed = CompletableFuture.runAsync(lease::close);
      assertThat(closed)
          .as("closed while the renewal still waits for the store")
          .succeedsWithin(Duration.ofSeconds(5));
      assertThat(answerRenewal.getCount()).as("the renewal has not been answered").isOne();
      assertThat(events.events).containsSubsequence("lost job", "released job");

      answerRenewal.countDown();
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(provider.calls).contains("release 1"));
    }
  }
}
