package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call whose caller gave up before a thread took it (all {@link ZkCalls#MAX_THREADS} were busy,
 * as when the ensemble stops answering) is not run later: it would create or renew a lease its
 * caller was told it failed to get. A release or the end of a lease still runs.
 */
class ZkCallsTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private final ZkCalls calls = new ZkCalls(TIMEOUT, "test");
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final CountDownLatch frozen = new CountDownLatch(1);

  @AfterEach
  void stop() {
    frozen.countDown();
    callers.shutdownNow();
    calls.close();
  }

  @Test
  void aCallQueuedBehindBusyThreadsIsNotRunOnceItsCallerGaveUp() throws Exception {
    occupyEveryThread();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(() -> calls.call("renew", "queued", () -> ran.getAndSet(true), null))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("no answer within 300 ms");

    frozen.countDown();
    drainQueue();
    assertThat(ran).as("the call given up while queued").isFalse();
  }

  @Test
  void anEndQueuedBehindBusyThreadsStillRunsOnceItsCallerGaveUp() throws Exception {
    occupyEveryThread();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(
            () -> calls.callEvenIfGivenUp("release", "queued", () -> ran.getAndSet(true)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("no answer within 300 ms");

    frozen.countDown();
    drainQueue();
    assertThat(ran).as("the release given up while queued").isTrue();
  }

  /** Every thread runs a call that waits for {@link #frozen}, its caller gone after the timeout. */
  private void occupyEveryThread() throws Exception {
    CountDownLatch started = new CountDownLatch(ZkCalls.MAX_THREADS);
    onEveryThread(
        () -> {
          started.countDown();
          return frozen.await(1, TimeUnit.MINUTES);
        });
    assertThat(started.await(10, TimeUnit.SECONDS)).as("every thread busy").isTrue();
  }

  /**
   * Returns once a call of each thread, queued after everything before, runs at the same time as
   * the others: no thread is then still running, or yet to run, anything queued before. Their
   * callers may give up first: these calls run all the same.
   */
  private void drainQueue() throws Exception {
    CyclicBarrier together = new CyclicBarrier(ZkCalls.MAX_THREADS);
    CountDownLatch met = new CountDownLatch(ZkCalls.MAX_THREADS);
    onEveryThread(
        () -> {
          together.await(20, TimeUnit.SECONDS);
          met.countDown();
          return null;
        });
    assertThat(met.await(30, TimeUnit.SECONDS)).as("every thread free for the probes").isTrue();
  }

  /** Sends {@code call} once for each thread, each from a caller of its own. */
  private void onEveryThread(ZkCalls.Call<?> call) {
    for (int i = 0; i < ZkCalls.MAX_THREADS; i++) {
      callers.submit(() -> calls.callEvenIfGivenUp("test", "every-thread", call));
    }
  }
}
