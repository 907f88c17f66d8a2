package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Waiting for a held lock: wake-ups on release, timeouts, interruption, mutual exclusion among
 * waiters and the engine's busy policies.
 */
public interface WaitingContract extends ContractFixture {

  /**
   * A waiter is woken on release; the median hand-off is under {@link
   * ContractTimings#maxHandOff()}.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void waiterIsWokenOnReleaseFarBelowTheTtl() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("handoff");
    List<Long> handOffs = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      LeaseGrant held = hold(a, id);
      CountDownLatch waiting = new CountDownLatch(1);
      AtomicReference<Thread> waiterThread = new AtomicReference<>();
      Future<Long> waiter =
          pool()
              .submit(
                  () -> {
                    waiterThread.set(Thread.currentThread());
                    waiting.countDown();
                    LeaseGrant got =
                        b.acquire(
                                LockRequest.of(id, Duration.ofSeconds(30)), Duration.ofSeconds(30))
                            .orElseThrow();
                    long grantedAt = System.nanoTime();
                    b.release(got);
                    return grantedAt;
                  });
      waiting.await();
      awaitWaiting(a, id, waiterThread.get());
      assertThat(waiter).as("not granted while held").isNotDone();
      long releasedAt = System.nanoTime();
      assertThat(a.release(held)).isTrue();
      long handOff = waiter.get(30, TimeUnit.SECONDS) - releasedAt;
      handOffs.add(handOff);
    }
    handOffs.sort(null);
    Duration median = Duration.ofNanos(handOffs.get(handOffs.size() / 2));
    LoggerFactory.getLogger(getClass())
        .info(
            "{}: hand-off median {} µs, all {}",
            getClass().getSimpleName(),
            median.toNanos() / 1000,
            handOffs);
    assertThat(median).isLessThan(timings().maxHandOff());
  }

  /**
   * A wait gives up at its timeout and leaves nothing behind.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void waitingHonoursItsTimeout() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("timeout");
    LeaseGrant held = hold(a, id);
    long start = System.nanoTime();
    assertThat(b.acquire(LockRequest.of(id, Duration.ofSeconds(30)), Duration.ofMillis(300)))
        .isEmpty();
    Duration waited = Duration.ofNanos(System.nanoTime() - start);
    assertThat(waited)
        .isGreaterThanOrEqualTo(Duration.ofMillis(290))
        .isLessThan(Duration.ofSeconds(5));
    assertThat(a.renew(held, Duration.ofSeconds(30))).as("the holder still holds").isPresent();
    assertThat(a.release(held)).isTrue();
    assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))))
        .as("the timed-out waiter left nothing behind")
        .isPresent();
  }

  /**
   * An interrupted waiter throws {@link InterruptedException} and is never granted the lock.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void interruptedWaiterLeavesNothingHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("interrupt");
    LeaseGrant held = hold(a, id);
    CountDownLatch waiting = new CountDownLatch(1);
    Thread[] thread = new Thread[1];
    Future<Throwable> waiter =
        pool()
            .submit(
                () -> {
                  thread[0] = Thread.currentThread();
                  waiting.countDown();
                  try {
                    b.acquire(LockRequest.of(id, Duration.ofSeconds(30)), Duration.ofSeconds(30));
                    return null;
                  } catch (InterruptedException e) {
                    return e;
                  }
                });
    waiting.await();
    awaitWaiting(a, id, thread[0]);
    assertThat(waiter).as("not granted while held").isNotDone();
    thread[0].interrupt();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(a.release(held)).isTrue();
    LockProvider c = client();
    assertThat(c.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))))
        .as("the interrupted waiter was not granted the lock")
        .isPresent();
  }

  /**
   * A plain read-sleep-write counter under 16 waiting threads ends at the exact count.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void mutualExclusionUnder16Threads() throws Exception {
    List<LockProvider> clients = List.of(client(), client(), client(), client());
    String id = lockId("counter");
    int threads = 16;
    int perThread = 15;
    int[] counter = {0};
    List<Future<?>> futures = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      LockProvider client = clients.get(t % clients.size());
      futures.add(
          pool()
              .submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                      LeaseGrant grant =
                          client
                              .acquire(
                                  LockRequest.of(id, Duration.ofSeconds(30)),
                                  Duration.ofSeconds(60))
                              .orElseThrow(() -> new AssertionError("wait timed out"));
                      int read = counter[0];
                      LockSupport.parkNanos(200_000); // widen the read-write window
                      counter[0] = read + 1;
                      assertThat(client.release(grant)).isTrue();
                    }
                    return null;
                  }));
    }
    start.countDown();
    for (Future<?> future : futures) {
      future.get(100, TimeUnit.SECONDS);
    }
    assertThat(counter[0]).isEqualTo(threads * perThread);
  }

  /**
   * The engine's SKIP, FAIL and WAIT with a timeout against a held lock.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void engineBusyPoliciesAgainstTheProvider() throws Exception {
    LockProvider a = client();
    String id = lockId("policies");
    LeaseGrant held = hold(a, id);
    Locksmith other = engine(client());
    LockOptions options = LockOptions.named(id);
    assertThat(other.run(options.withOnBusy(OnBusy.SKIP), () -> {})).isFalse();
    assertThatThrownBy(() -> other.run(options.withOnBusy(OnBusy.FAIL), () -> {}))
        .isInstanceOf(dev.locksmith.core.LockBusyException.class);
    assertThatThrownBy(() -> other.run(options.withWaitTimeout(Duration.ofMillis(200)), () -> {}))
        .isInstanceOf(dev.locksmith.core.LockTimeoutException.class);
    a.release(held);
    assertThat(other.run(options, () -> {})).isTrue();
  }

  /**
   * {@code minHold} counts from the grant after a long wait, not from the start of the wait.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void minHoldCountsFromTheGrantNotFromTheStartOfTheWait() throws Exception {
    LockProvider holderClient = client();
    LockProvider other = client();
    Locksmith locksmith = engine(client());
    String id = lockId("min-hold-after-wait");
    LeaseGrant holder = hold(holderClient, id);
    Duration minHold = Duration.ofSeconds(2);
    AtomicLong releasedAt = new AtomicLong();
    Lease lease;
    Future<Lease> waiter =
        pool()
            .submit(
                () ->
                    locksmith.acquire(
                        LockOptions.named(id)
                            .withTtl(Duration.ofSeconds(10))
                            .withMinHold(minHold)
                            .withWaitTimeout(Duration.ofSeconds(20))));
    awaitWaiting(holderClient, id);
    // The waiter waits longer than its minimum hold before it is granted.
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      timer.schedule(
          () -> {
            releasedAt.set(System.nanoTime());
            holderClient.release(holder);
          },
          minHold.toMillis() + 500,
          TimeUnit.MILLISECONDS);
      lease = waiter.get(20, TimeUnit.SECONDS);
    } finally {
      timer.shutdown();
    }
    long grantedAt = releasedAt.get(); // no later than the grant the minimum hold counts from
    lease.close();
    MinHoldChecks.awaitFreeOnlyAfterMinHold(
        other,
        id,
        grantedAt,
        minHold,
        timings().expiryGrace().plusSeconds(2),
        "the lock was free again before minHold had passed since the grant");
  }
}
