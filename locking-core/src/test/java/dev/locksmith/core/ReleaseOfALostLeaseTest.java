package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A lease lost at its deadline while its renewal still waits for a store that stopped answering:
 * the holder, told of the loss, closes it without waiting for that call (which may take the
 * client's whole timeout), and a renewal that does succeed later is freed by its own answer.
 */
class ReleaseOfALostLeaseTest {
  private final VirtualTicker ticker = new VirtualTicker();
  private final CountDownLatch renewStarted = new CountDownLatch(1);
  private final CountDownLatch answerRenewal = new CountDownLatch(1);
  private final RecordingListener events = new RecordingListener();

  /** Grants every lock; a renewal waits for {@link #answerRenewal}, then renews. */
  private final VirtualTimeProvider provider =
      new VirtualTimeProvider(ticker, "frozen") {
        @Override
        public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
          calls.add("renew");
          renewStarted.countDown();
          try {
            answerRenewal.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.of(
              new LeaseGrant(
                  lease.lockId(),
                  lease.ownerToken(),
                  lease.fencingToken(),
                  ttl,
                  ticker.read() + ttl.toNanos()));
        }
      };

  @Test
  void closingALeaseLostWhileItsRenewalHangsDoesNotWaitForIt() throws Exception {
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
      assertThat(renewStarted.getCount()).isZero();
      assertThat(answerRenewal.getCount()).as("the renewal has not been answered").isOne();
      assertThat(events.events).containsSubsequence("lost job", "released job");

      answerRenewal.countDown();
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(provider.calls).contains("release 1"));
    }
  }
}
