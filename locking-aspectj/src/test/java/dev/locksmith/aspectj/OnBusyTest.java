package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each busy policy, with the lock held by another owner of the same lock directory. */
class OnBusyTest {
  @RegisterExtension final FileEngines engines = new FileEngines();
  Lease held;
  final Jobs jobs = new Jobs();

  @BeforeEach
  void holdTheLockElsewhere() {
    held = engines.otherProcess().acquire(LockOptions.named("jobs.busy"));
  }

  @AfterEach
  void tearDown() throws Exception {
    held.close();
  }

  @Test
  void skipDoesNotRunTheMethod() {
    assertThat(jobs.skipping()).isEmpty();
    jobs.skippingVoid();

    assertThat(jobs.runs).hasValue(0);
    assertThat(engines.listener.events()).containsExactly("busy jobs.busy", "busy jobs.busy");
  }

  @Test
  void failThrowsAtOnce() {
    assertThatThrownBy(jobs::failing)
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("jobs.busy");
    assertThat(jobs.runs).hasValue(0);
  }

  @Test
  void waitGivesUpAfterItsTimeout() {
    assertThatThrownBy(jobs::waitingBriefly).isInstanceOf(LockTimeoutException.class);
    assertThat(jobs.runs).hasValue(0);
    assertThat(engines.listener.events()).containsExactly("timedOut jobs.busy");
  }

  @Test
  void waitRunsTheMethodOnceTheOtherOwnerReleases() throws Exception {
    AtomicBoolean released = new AtomicBoolean();
    AtomicReference<Thread> caller = new AtomicReference<>();
    CompletableFuture<Long> token =
        CompletableFuture.supplyAsync(
            () -> {
              caller.set(Thread.currentThread());
              long value = jobs.waiting();
              assertThat(released).as("ran only after the holder released").isTrue();
              return value;
            });
    await().until(() -> caller.get() != null && isWaiting(caller.get()));
    assertThat(token).isNotDone();

    released.set(true);
    held.close();

    assertThat(token.get(30, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    assertThat(jobs.runs).hasValue(1);
  }

  private static boolean isWaiting(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.TIMED_WAITING || state == Thread.State.WAITING;
  }
}
