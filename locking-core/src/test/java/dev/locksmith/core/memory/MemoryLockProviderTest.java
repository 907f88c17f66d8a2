package dev.locksmith.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MemoryLockProviderTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void closeWakesEveryWaiterWithAClearErrorAndLeavesNothingQueued() throws Exception {
    String store = "close-" + System.nanoTime();
    MemoryLockProvider holder = MemoryLockProvider.shared(store);
    MemoryLockProvider waiting = MemoryLockProvider.shared(store);
    LeaseGrant held =
        holder.tryAcquire(LockRequest.of("busy", Duration.ofSeconds(30))).orElseThrow();
    Future<?> first =
        pool.submit(
            () ->
                waiting.acquire(
                    LockRequest.of("busy", Duration.ofSeconds(30)), Duration.ofSeconds(20)));
    Future<?> second =
        pool.submit(
            () ->
                waiting.acquire(
                    LockRequest.of("busy", Duration.ofSeconds(30)), Duration.ofSeconds(20)));
    await().atMost(Duration.ofSeconds(5)).until(() -> holder.status("busy").waiters() == 2);

    long start = System.nanoTime();
    waiting.close();
    for (Future<?> waiter : new Future<?>[] {first, second}) {
      assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(LockProviderException.class)
          .hasMessage("The provider mem:" + store + " was closed");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(holder.status("busy").waiters()).isZero();
    assertThatThrownBy(() -> waiting.tryAcquire(LockRequest.of("other", Duration.ofSeconds(1))))
        .isInstanceOf(LockProviderException.class);
    assertThat(holder.release(held)).isTrue();
  }

  @Test
  void aDiscardedStoresSuccessorIssuesHigherTokens() {
    String store = "discard-" + System.nanoTime();
    long before =
        MemoryLockProvider.shared(store)
            .tryAcquire(LockRequest.of("x", Duration.ofSeconds(1)))
            .orElseThrow()
            .fencingToken();
    MemoryLockProvider.discardShared(store);
    long after =
        MemoryLockProvider.shared(store)
            .tryAcquire(LockRequest.of("x", Duration.ofSeconds(1)))
            .orElseThrow()
            .fencingToken();
    assertThat(after).isGreaterThan(before);
  }
}
