package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 5: a waiter cancelled — by its timeout or by an interrupt — at the moment the lock is
 * handed to it. Whether the cancel or the grant wins, no ownership may leak: the next waiter must
 * get the lock within 1 s of the lock becoming free. Leases last 10 s, so a leaked grant would show
 * as a wait of seconds.
 */
class CancelledWaiterChaosTest {
  static final String TITLE = "Waiter cancelled at the moment of its grant";
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration CANCEL_AFTER = Duration.ofMillis(800);
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final int ROUNDS = 10;

  private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private enum Cancel {
    TIMEOUT,
    INTERRUPT
  }

  /** A granted lease and when the waiter got it. */
  private record Granted(Lease lease, long at) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(Backend.Kind.class)
  void aWaiterCancelledAtItsGrantLeaksNothing(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("5-cancel-" + kind.name().toLowerCase());
    List<String> violations = new ArrayList<>();
    List<Long> nextWaiter = new ArrayList<>();
    int[] grantWon = new int[2];
    int[] cancelWon = new int[2];
    try (Backend backend = kind.start(dir, false);
        Client holder = Client.connect(backend.url());
        Client cancelled = Client.connect(backend.url());
        Client next = Client.connect(backend.url())) {
      for (Cancel cancel : Cancel.values()) {
        for (int round = 0; round < ROUNDS; round++) {
          String lockId = "cancel-" + cancel.name().toLowerCase() + "-" + round;
          LockOptions options = LockOptions.named(lockId).withTtl(LEASE);
          Lease held = holder.locksmith().acquire(options);

          AtomicLong startedAt = new AtomicLong();
          Async.Call<Granted> first =
              Async.start(
                  "cancelled-" + round,
                  () -> {
                    startedAt.set(System.nanoTime());
                    Lease lease =
                        cancelled
                            .locksmith()
                            .acquire(
                                options.withWaitTimeout(
                                    cancel == Cancel.TIMEOUT
                                        ? CANCEL_AFTER
                                        : Duration.ofSeconds(30)));
                    return new Granted(lease, System.nanoTime());
                  });
          Readiness.awaitWaiting(cancelled, lockId, 1, List.of(first.thread()));
          Async.Call<Granted> second =
              Async.start(
                  "next-" + round,
                  () -> {
                    Lease lease =
                        next.locksmith().acquire(options.withWaitTimeout(Duration.ofSeconds(30)));
                    return new Granted(lease, System.nanoTime());
                  });
          Readiness.awaitWaiting(next, lockId, 2, List.of(first.thread(), second.thread()));

          long freedAt;
          if (cancel == Cancel.TIMEOUT) {
            // Release when the first waiter's timeout runs out, from 20 ms before to 16 ms after.
            long offset = TimeUnit.MILLISECONDS.toNanos(-20 + 4L * round);
            LockSupport.parkNanos(
                startedAt.get() + CANCEL_AFTER.toNanos() + offset - System.nanoTime());
            freedAt = System.nanoTime();
            held.close();
          } else {
            // Interrupt the first waiter as the lock is released, 0 to 1.8 ms after the release.
            CountDownLatch gate = new CountDownLatch(1);
            long offset = TimeUnit.MICROSECONDS.toNanos(200L * round);
            Async.Call<Boolean> interrupter =
                Async.start(
                    "interrupter-" + round,
                    () -> {
                      gate.await();
                      LockSupport.parkNanos(offset);
                      first.thread().interrupt();
                      return true;
                    });
            gate.countDown();
            freedAt = System.nanoTime();
            held.close();
            interrupter.result().get(10, TimeUnit.SECONDS);
          }

          try {
            Granted won = first.result().get(35, TimeUnit.SECONDS);
            grantWon[cancel.ordinal()]++;
            freedAt = System.nanoTime();
            won.lease().close();
          } catch (ExecutionException e) {
            Throwable failure = e.getCause();
            if (!(cancel == Cancel.TIMEOUT
                ? failure instanceof LockTimeoutException
                : failure instanceof LockException
                    && causedBy(failure, InterruptedException.class))) {
              violations.add(
                  cancel + " round " + round + ": the cancelled waiter failed with " + failure);
            }
            cancelWon[cancel.ordinal()]++;
          }
          try (Lease lease = second.result().get(35, TimeUnit.SECONDS).lease()) {
            long waited = second.result().get().at() - freedAt;
            nextWaiter.add(Math.max(0, waited));
            if (waited > BOUND.toNanos()) {
              violations.add(
                  cancel
                      + " round "
                      + round
                      + ": the next waiter got the lock "
                      + waited / 1_000_000
                      + " ms after it was free (ownership leaked?)");
            }
            assertThat(lease.isValid()).isTrue();
          } catch (ExecutionException e) {
            violations.add(
                cancel + " round " + round + ": the next waiter failed: " + e.getCause());
          }
        }
      }
    }
    Figures figures =
        new Figures()
            .put("rounds (timeout + interrupt)", ROUNDS + " + " + ROUNDS)
            .put("timeout: grant won / cancel won", grantWon[0] + " / " + cancelWon[0])
            .put("interrupt: grant won / cancel won", grantWon[1] + " / " + cancelWon[1])
            .latencies("free -> next waiter acquires", nextWaiter);
    ChaosReport.record(5, TITLE, kind, figures, violations);
    assertThat(violations).isEmpty();
    assertThat(nextWaiter).hasSize(2 * ROUNDS);
  }
}
