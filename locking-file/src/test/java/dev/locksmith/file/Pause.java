package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stops the first thread that calls {@link #here()} until the test calls {@link #release()}, as a
 * GC pause or {@code SIGSTOP} would stop a process at that point. Later calls pass through. Both
 * waits are bounded.
 */
final class Pause {
  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicBoolean armed = new AtomicBoolean(true);

  /** Called from a hook: the first caller waits here until released (at most a minute). */
  void here() {
    if (!armed.compareAndSet(true, false)) {
      return;
    }
    reached.countDown();
    try {
      if (!released.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the paused thread");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while paused", e);
    }
  }

  /** Waits (at most 20 s) until a thread is paused here. */
  void awaitReached() throws InterruptedException {
    assertThat(reached.await(20, TimeUnit.SECONDS)).as("a thread reached the pause").isTrue();
  }

  /** Lets the paused thread go on. */
  void release() {
    released.countDown();
  }
}
