package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lock granted to a call that was already waiting when the engine closed: the engine no longer
 * renews or watches leases, so the call must not run under it. It fails with the engine's "closed"
 * error and the grant is given back, whether one key or several were asked for.
 */
class CloseWhileAcquiringTest {
  private static final Duration TTL = Duration.ofMillis(300);

  // Given to the builder, so the engine does not close it: its waiters are not woken by close().
  private final MemoryLockProvider provider = MemoryLockProvider.isolated();
  private final RecordingListener events = new RecordingListener();
  private final Locksmith locksmith =
      Locksmith.builder().defaultProvider(provider).listener(events).build();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
    locksmith.close();
  }

  @Test
  void aGrantAfterCloseIsGivenBackAndTheWaitingCallDoesNotRun() throws Exception {
    assertGivenBack(LockOptions.named("x"), "x");
  }

  @Test
  void aSetOfGrantsAfterCloseIsGivenBackAndTheWaitingCallDoesNotRun() throws Exception {
    assertGivenBack(LockOptions.named("acct").withKeys("a", "b"), "acct:a");
  }

  private void assertGivenBack(LockOptions options, String heldId) throws Exception {
    LeaseGrant other = provider.tryAcquire(LockRequest.of(heldId, Duration.ofSeconds(30))).get();
    AtomicBoolean ran = new AtomicBoolean();
    Future<Boolean> waiting =
        pool.submit(
            () ->
                locksmith.run(
                    options.withTtl(TTL).withWaitTimeout(Duration.ofSeconds(10)),
                    () -> ran.set(true)));
    await().atMost(Duration.ofSeconds(5)).until(() -> provider.status(heldId).waiters() == 1);

    locksmith.close();
    assertThat(provider.release(other)).isTrue();

    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(ran).as("the call ran under a lease nobody renews").isFalse();
    assertThat(provider.status(heldId).holder()).as("the grant was given back").isNull();
    assertThat(provider.tryAcquire(LockRequest.of(heldId, Duration.ofSeconds(1)))).isPresent();
    assertThat(events.events).noneMatch(event -> event.startsWith("acquired"));
  }
}
