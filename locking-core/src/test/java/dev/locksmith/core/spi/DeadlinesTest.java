package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeadlinesTest {

  @Test
  void aNegativeOrZeroWaitEndsNow() {
    assertThat(Deadlines.waitNanos(Duration.ofMillis(-5))).isZero();
    assertThat(Deadlines.waitNanos(Duration.ZERO)).isZero();
  }

  @Test
  void anOrdinaryWaitIsItsLength() {
    assertThat(Deadlines.waitNanos(Duration.ofSeconds(3))).isEqualTo(3_000_000_000L);
  }

  @Test
  void anEndlessWaitGivesAFiniteDeadlineThatDoesNotOverflow() {
    Duration forever = ChronoUnit.FOREVER.getDuration();
    assertThat(Deadlines.waitNanos(forever)).isEqualTo(Deadlines.MAX_WAIT_NANOS);
    long deadline = Deadlines.nanosAfter(forever);
    assertThat(deadline - System.nanoTime()).isPositive();
  }

  @Test
  void aWakeSentBeforeTheWaitEndsItAtOnceAndManyCountAsOne() throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    signal.wake();
    signal.wake();
    long start = System.nanoTime();
    signal.await(TimeUnit.SECONDS.toNanos(30));
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));

    // The second wake-up was folded into the first: this wait runs its whole (short) length.
    start = System.nanoTime();
    signal.await(TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
  }

  @Test
  void aWakeFromAnotherThreadEndsAWait() throws InterruptedException {
    WakeSignal signal = new WakeSignal();
    CountDownLatch woken = new CountDownLatch(1);
    Thread waiter =
        new Thread(
            () -> {
              try {
                signal.await(TimeUnit.SECONDS.toNanos(60));
                woken.countDown();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    signal.wake();
    assertThat(woken.await(30, TimeUnit.SECONDS)).isTrue();
    waiter.join();
  }
}
