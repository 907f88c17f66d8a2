package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TcpLockProvider#releaseAsync} against the real lock server: the RELEASE is on the wire
 * when the call returns and a later request of the same provider is applied after it; the stage
 * completes from the reply only (checked with replies or requests held back by a proxy), with what
 * {@code release} gives; {@code close()} waits for unanswered releases.
 */
class TcpAsyncReleaseTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final int ROUNDS = 1_000;
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void aTryAcquireRightAfterReleaseAsyncIsNeverBusyAndTokensRise() {
    try (LockProvider provider = LockProviders.create(server.url())) {
      List<CompletionStage<Boolean>> releases = new ArrayList<>(ROUNDS);
      long last = 0;
      for (int i = 0; i < ROUNDS; i++) {
        Optional<LeaseGrant> grant = provider.tryAcquire(LockRequest.of("async-same", TTL));
        assertThat(grant).as("round %d: busy after the previous releaseAsync", i).isPresent();
        assertThat(grant.get().fencingToken()).isGreaterThan(last);
        last = grant.get().fencingToken();
        releases.add(provider.releaseAsync(grant.get()));
      }
      for (CompletionStage<Boolean> release : releases) {
        assertThat(release.toCompletableFuture().join()).isTrue();
      }
    }
  }

  @Test
  void aTryAcquireOnAnotherThreadRightAfterReleaseAsyncIsNeverBusy() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (LockProvider provider = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("async-other", TTL)).orElseThrow();
      List<CompletionStage<Boolean>> releases = new ArrayList<>(ROUNDS);
      for (int i = 0; i < ROUNDS; i++) {
        releases.add(provider.releaseAsync(grant));
        LeaseGrant before = grant;
        Optional<LeaseGrant> next =
            other
                .submit(() -> provider.tryAcquire(LockRequest.of("async-other", TTL)))
                .get(10, TimeUnit.SECONDS);
        assertThat(next).as("round %d: busy after releaseAsync", i).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(before.fencingToken());
        grant = next.get();
      }
      assertThat(provider.release(grant)).isTrue();
      for (CompletionStage<Boolean> release : releases) {
        assertThat(release.toCompletableFuture().join()).isTrue();
      }
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void theLeaseStaysHeldOnTheServerAndTheStageOpenUntilTheReleaseArrives() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider = viaProxy(proxy, "10s");
        LockProvider observer = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("async-held", TTL)).orElseThrow();
      proxy.freeze(FaultProxy.Direction.TO_SERVER);
      CompletableFuture<Boolean> release = provider.releaseAsync(grant).toCompletableFuture();

      assertThat(release).isNotDone();
      assertThat(observer.status("async-held").currentHolder())
          .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(grant.fencingToken()));
      assertThat(release).as("still unanswered").isNotDone();

      proxy.thaw();
      assertThat(release.get(5, TimeUnit.SECONDS)).isTrue();
      assertThat(observer.status("async-held").currentHolder()).isEmpty();
    }
  }

  @Test
  void theStageCompletesFromTheDelayedReplyNotBefore() throws Exception {
    Duration delay = Duration.ofMillis(400);
    try (FaultProxy proxy = server.proxy();
        LockProvider provider = viaProxy(proxy, "10s")) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("async-delayed", TTL)).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, delay);
      long sent = System.nanoTime();
      CompletableFuture<Boolean> release = provider.releaseAsync(grant).toCompletableFuture();
      long returned = System.nanoTime();

      assertThat(Duration.ofNanos(returned - sent)).isLessThan(delay);
      assertThat(release.get(5, TimeUnit.SECONDS)).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - sent))
          .as("completed only when the delayed reply came")
          .isGreaterThanOrEqualTo(delay.minusMillis(20));
    }
  }

  @Test
  void closeCompletesThePendingReleasesFirst() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider observer = LockProviders.create(server.url())) {
      LockProvider provider = viaProxy(proxy, "10s");
      List<LeaseGrant> grants = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        grants.add(provider.tryAcquire(LockRequest.of("async-close-" + i, TTL)).orElseThrow());
      }
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      List<CompletableFuture<Boolean>> releases = new ArrayList<>();
      for (LeaseGrant grant : grants) {
        releases.add(provider.releaseAsync(grant).toCompletableFuture());
      }
      Thread closer = new Thread(provider::close, "closer");
      closer.start();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> closer.getState() == Thread.State.TIMED_WAITING);
      assertThat(releases).as("their replies are held back").noneMatch(CompletableFuture::isDone);
      assertThat(closer.isAlive()).as("close() waits for the unanswered releases").isTrue();

      proxy.thaw();
      closer.join(5_000);
      assertThat(closer.isAlive()).isFalse();
      for (CompletableFuture<Boolean> release : releases) {
        assertThat(release).isCompletedWithValue(true);
      }
      for (int i = 0; i < 20; i++) {
        assertThat(observer.status("async-close-" + i).currentHolder()).isEmpty();
      }
    }
  }

  @Test
  void closeOnAnInterruptedThreadStillWaitsForThePendingReleases() throws Exception {
    // A cancelled task closing the provider in its finally: only a wait answers an interrupt.
    try (FaultProxy proxy = server.proxy()) {
      LockProvider provider = viaProxy(proxy, "10s");
      LeaseGrant grant =
          provider.tryAcquire(LockRequest.of("async-interrupted", TTL)).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(300));
      CompletableFuture<Boolean> release = provider.releaseAsync(grant).toCompletableFuture();

      Thread.currentThread().interrupt();
      try {
        provider.close();
        assertThat(Thread.currentThread().isInterrupted()).as("the interrupt kept").isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(release).isCompletedWithValue(true);
    }
  }

  @Test
  void anUnansweredReleaseFailsAsReleaseDoesAndCloseFinishesAfterTheTimeout() throws Exception {
    try (FaultProxy proxy = server.proxy()) {
      LockProvider provider = viaProxy(proxy, "1s");
      LeaseGrant async = provider.tryAcquire(LockRequest.of("async-timeout", TTL)).orElseThrow();
      LeaseGrant sync = provider.tryAcquire(LockRequest.of("sync-timeout", TTL)).orElseThrow();
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);

      CompletableFuture<Boolean> release = provider.releaseAsync(async).toCompletableFuture();
      Throwable syncFailure = catchFailure(() -> provider.release(sync));
      Throwable asyncFailure = catchFailure(release::join);

      assertThat(asyncFailure).isInstanceOf(LockProviderException.class);
      assertThat(syncFailure).isInstanceOf(LockProviderException.class);
      assertThat(asyncFailure.getMessage().replace("async-timeout", "X"))
          .isEqualTo(syncFailure.getMessage().replace("sync-timeout", "X"))
          .contains("did not answer RELEASE 'X' within");

      long closing = System.nanoTime();
      provider.close();
      assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(3));
    }
  }

  @Test
  void aConnectionDroppedAfterTheReleaseWasSentGivesTrue() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider = viaProxy(proxy, "10s");
        LockProvider observer = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("async-dropped", TTL)).orElseThrow();
      List<LeaseGrant> lost = new ArrayList<>();
      provider.onLeaseLost(lost::add);
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      CompletableFuture<Boolean> release = provider.releaseAsync(grant).toCompletableFuture();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> observer.status("async-dropped").currentHolder().isEmpty());
      proxy.resetAll();

      assertThat(release.get(5, TimeUnit.SECONDS)).isTrue();
      assertThat(lost).as("released, not lost").isEmpty();
    }
  }

  @Test
  void aLeaseTheClientKnowsIsGoneCompletesFalseAtOnce() {
    try (LockProvider provider = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("async-twice", TTL)).orElseThrow();
      assertThat(provider.releaseAsync(grant).toCompletableFuture().join()).isTrue();
      assertThat(provider.releaseAsync(grant).toCompletableFuture()).isCompletedWithValue(false);
    }
  }

  @Test
  void aLeaseTakenOverOnTheServerCompletesFalse() throws Exception {
    try (LockProvider provider = LockProviders.create(server.url());
        LockProvider other = LockProviders.create(server.url())) {
      LeaseGrant grant =
          provider
              .tryAcquire(LockRequest.of("async-expired", Duration.ofMillis(200)))
              .orElseThrow();
      LeaseGrant taken =
          other.acquire(LockRequest.of("async-expired", TTL), Duration.ofSeconds(5)).orElseThrow();
      assertThat(provider.releaseAsync(grant).toCompletableFuture().get(5, TimeUnit.SECONDS))
          .isFalse();
      assertThat(other.status("async-expired").currentHolder())
          .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(taken.fencingToken()));
    }
  }

  private static LockProvider viaProxy(FaultProxy proxy, String requestTimeout) {
    return LockProviders.create(RunningServer.url(proxy, "?request-timeout=" + requestTimeout));
  }

  private static Throwable catchFailure(Runnable call) {
    try {
      call.run();
    } catch (CompletionException e) {
      return e.getCause();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("no failure");
  }
}
