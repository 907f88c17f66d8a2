package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The waiters of one lock id in one engine queue locally, first come first served, behind one
 * remote wait: the provider never sees two of them waiting at once, each grant is the provider's
 * own (its own token), and a wait that ends in the local queue leaves nothing behind.
 */
class SharedWaitsTest {
  private static final LockOptions OPTIONS =
      LockOptions.named("shared")
          .withOnBusy(OnBusy.WAIT)
          .withWaitTimeout(Duration.ofSeconds(30))
          .withTtl(Duration.ofSeconds(30));

  private final MemoryLockProvider store = MemoryLockProvider.isolated();
  private final RemoteWaitCounter waiters = new RemoteWaitCounter(store);
  private final Locksmith holder = Locksmith.builder().defaultProvider(store).build();
  private final Locksmith engine = Locksmith.builder().defaultProvider(waiters).build();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void close() {
    pool.shutdownNow();
    engine.close();
    holder.close();
  }

  @Test
  void twentyWaitersMakeOneRemoteWaitAtATimeAndAreServedInTheOrderTheyCame() throws Exception {
    Lease held = holder.acquire(OPTIONS);
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    List<Thread> threads = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 20; i++) {
      int index = i;
      calls.add(
          CompletableFuture.runAsync(
              () -> {
                threads.add(Thread.currentThread());
                try (Lease lease = engine.acquire(OPTIONS)) {
                  order.add(index);
                  tokens.add(lease.fencingToken());
                }
              },
              pool));
      // Queue them one by one, so the order they came in is known.
      await().atMost(Duration.ofSeconds(10)).until(() -> threads.size() == index + 1);
      Thread waiter = threads.get(index);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  waiter.getState() == Thread.State.WAITING
                      || waiter.getState() == Thread.State.TIMED_WAITING);
    }
    assertThat(waiters.inFlight.get()).isEqualTo(1);
    held.close();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    assertThat(order).containsExactlyElementsOf(IntStream.range(0, 20).boxed().toList());
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
    assertThat(waiters.mostInFlight.get()).as("remote waits at once").isEqualTo(1);
    assertThat(waiters.remoteWaits.get()).isEqualTo(20);
  }

  @Test
  void aWaitThatRunsOutInTheLocalQueueTimesOutAndLeavesTheQueueWorking() throws Exception {
    Lease held = holder.acquire(OPTIONS);
    CompletableFuture<Long> first =
        CompletableFuture.supplyAsync(
            () -> {
              try (Lease lease = engine.acquire(OPTIONS)) {
                return lease.fencingToken();
              }
            },
            pool);
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters.inFlight.get() == 1);

    long start = System.nanoTime();
    assertThatThrownBy(() -> engine.acquire(OPTIONS.withWaitTimeout(Duration.ofMillis(200))))
        .isInstanceOf(LockTimeoutException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(waiters.remoteWaits.get())
        .as("the timed-out one never waited remotely")
        .isEqualTo(1);

    held.close();
    assertThat(first.get(10, TimeUnit.SECONDS)).isPositive();
    try (Lease again = engine.acquire(OPTIONS)) {
      assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void anInterruptedLocalWaiterHoldsNothing() throws Exception {
    Lease held = holder.acquire(OPTIONS);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(() -> engine.acquire(OPTIONS).close(), pool);
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters.inFlight.get() == 1);
    AtomicInteger outcome = new AtomicInteger();
    Thread second =
        new Thread(
            () -> {
              try {
                engine.acquire(OPTIONS).close();
                outcome.set(1);
              } catch (LockException e) {
                outcome.set(Thread.currentThread().isInterrupted() ? 2 : 3);
              }
            });
    second.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> second.getState() == Thread.State.TIMED_WAITING);
    second.interrupt();
    second.join(10_000);
    assertThat(outcome.get()).as("interrupted, with the flag kept").isEqualTo(2);
    held.close();
    first.get(10, TimeUnit.SECONDS);
    assertThat(store.status(OPTIONS.lockId()).holder()).isNull();
  }

  /** Counts the remote waits a real provider is asked for, and how many run at once. */
  private static final class RemoteWaitCounter extends ForwardingProvider {
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();
    final AtomicInteger remoteWaits = new AtomicInteger();

    RemoteWaitCounter(LockProvider delegate) {
      super(delegate);
    }

    @Override
    public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
        throws InterruptedException {
      remoteWaits.incrementAndGet();
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        return super.acquire(request, timeout);
      } finally {
        inFlight.decrementAndGet();
      }
    }
  }
}
