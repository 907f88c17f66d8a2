package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lease closed after its deadline passed, with its release answered asynchronously: the loss is
 * told on the closing thread before the release goes out, whatever the keeper's sweep saw first,
 * and told once however the release is answered. Before this rule a sweep that found the release in
 * flight ended the lease as released by its TTL and told no loss. A release whose stage comes back
 * only after the deadline ended it is not counted as pending, so closing the engine does not wait
 * for an answer that may never come.
 */
class ReleaseAfterDeadlineTest {
  private final VirtualTicker ticker = new VirtualTicker();
  private final HeldReleases provider = new HeldReleases(ticker);
  private final RecordingListener events = new RecordingListener();
  private final Locksmith locksmith =
      Locksmith.builder().defaultProvider(provider).ticker(ticker).listener(events).build();

  @AfterEach
  void answerAndClose() {
    provider.sent.forEach(answer -> answer.complete(true));
    locksmith.close();
  }

  @Test
  void lossIsToldOnTheClosingThreadBeforeTheReleaseIsAnswered() throws Exception {
    CompletableFuture<Boolean> release = closedAfter("late", Duration.ofSeconds(1));

    assertThat(release).as("the release is still unanswered").isNotDone();
    // Told by close() itself, or by the keeper's sweep should it see the deadline first.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(events.events)
                    .as("told while the release is unanswered")
                    .contains("lost late"));
    release.complete(true);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> locksmith.keeper().pendingReleases().count() == 0);
    assertThat(events.events)
        .as("the loss told once; every lease then ends with its released event")
        .containsExactly("acquired late", "lost late", "released late");
  }

  @Test
  void aLeaseClosedBeforeItsDeadlineIsReleasedWhenTheAnswerComes() throws Exception {
    CompletableFuture<Boolean> release = closedAfter("on-time", Duration.ofMillis(999));

    assertThat(events.events).containsExactly("acquired on-time");
    release.complete(true);
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("released on-time"));
    assertThat(events.events).containsExactly("acquired on-time", "released on-time");
  }

  @Test
  void aReleaseSentAfterTheDeadlineEndedItIsNotLeftPending() throws Exception {
    provider.gate = new CountDownLatch(1);
    Lease lease =
        locksmith.acquire(
            LockOptions.named("slow-send").withTtl(Duration.ofSeconds(1)).withRenew(false));
    Thread closing = new Thread(lease::close, "closing");
    closing.start();
    assertThat(provider.entered.await(5, TimeUnit.SECONDS)).as("release being sent").isTrue();

    // The deadline passes while the provider has not yet returned the release's stage.
    ticker.advance(Duration.ofSeconds(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("released slow-send"));
    provider.gate.countDown();
    closing.join(5_000);

    assertThat(closing.isAlive()).isFalse();
    assertThat(locksmith.keeper().pendingReleases().count())
        .as("a release the deadline already ended, whose answer may never come")
        .isZero();
  }

  /**
   * Takes {@code name} for 1 s (not renewed), lets {@code elapsed} pass on the engine's clock,
   * closes the lease and returns its release, sent and unanswered.
   */
  private CompletableFuture<Boolean> closedAfter(String name, Duration elapsed)
      throws InterruptedException {
    Lease lease =
        locksmith.acquire(LockOptions.named(name).withTtl(Duration.ofSeconds(1)).withRenew(false));
    ticker.advance(elapsed);
    lease.close();
    return provider.sent.take();
  }

  /** Grants on virtual time, never renews, and holds every release until the test answers it. */
  private static final class HeldReleases extends VirtualTimeProvider {
    final LinkedBlockingQueue<CompletableFuture<Boolean>> sent = new LinkedBlockingQueue<>();
    final CountDownLatch entered = new CountDownLatch(1);
    // When set, a release waits for it before it returns its stage.
    volatile @Nullable CountDownLatch gate;

    HeldReleases(VirtualTicker ticker) {
      super(ticker, "held releases");
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      return Optional.empty();
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
      CountDownLatch wait = gate;
      if (wait != null) {
        entered.countDown();
        try {
          assertThat(wait.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      CompletableFuture<Boolean> answer = new CompletableFuture<>();
      sent.add(answer);
      return answer;
    }
  }
}
