package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine's own background threads: bounded in number whatever the work handed to them, and
 * stopped and waited for by {@link Locksmith#close()}, so that no provider call of theirs follows
 * it.
 */
class EngineThreadsTest {

  /**
   * Waits for the latch (at most 10 s) as a file system call does: an interrupt does not end it.
   */
  private static void awaitIgnoringInterrupts(CountDownLatch latch) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    boolean interrupted = false;
    while (latch.getCount() > 0 && System.nanoTime() < deadline) {
      try {
        latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void closeWaitsForTheStartUpProbeSoThatNoProviderCallFollowsIt() throws Exception {
    CountDownLatch inProbe = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    CountDownLatch probeEnded = new CountDownLatch(1);
    AtomicBoolean closeReturned = new AtomicBoolean();
    List<String> callsAfterClose = new CopyOnWriteArrayList<>();
    ForwardingProvider slow =
        new ForwardingProvider(MemoryLockProvider.isolated()) {
          @Override
          public LockStatus status(String lockId) {
            inProbe.countDown();
            try {
              awaitIgnoringInterrupts(proceed);
              // As the file provider's probe creates and deletes a file: a call on the provider.
              if (closeReturned.get()) {
                callsAfterClose.add("status " + lockId);
              }
              return delegate.status(lockId);
            } finally {
              probeEnded.countDown();
            }
          }
        };
    Locksmith locksmith = Locksmith.builder().defaultProvider(slow).build();
    assertThat(inProbe.await(5, TimeUnit.SECONDS)).as("the start-up probe runs").isTrue();

    Thread closer =
        new Thread(
            () -> {
              locksmith.close();
              closeReturned.set(true);
            },
            "closer");
    closer.start();
    // Either close returned at once (the probe left running), or it waits for the probe.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                !closer.isAlive()
                    || Arrays.stream(closer.getStackTrace())
                        .anyMatch(frame -> frame.getMethodName().equals("awaitTermination")));
    proceed.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(10));

    assertThat(closer.isAlive()).isFalse();
    assertThat(probeEnded.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(callsAfterClose).as("provider calls after close() returned").isEmpty();
  }

  @Test
  void theBackgroundPoolRunsAtMostItsBoundOfTasksAtOnceAndRunsTheRestAfterThem() {
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(MemoryLockProvider.isolated()).build()) {
      LeaseKeeper keeper = locksmith.keeper();
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger started = new AtomicInteger();
      AtomicInteger finished = new AtomicInteger();
      int tasks = 20;
      for (int i = 0; i < tasks; i++) {
        keeper.runAfter(
            Duration.ZERO,
            () -> {
              started.incrementAndGet();
              awaitIgnoringInterrupts(release);
              finished.incrementAndGet();
            });
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> started.get() >= EngineThreads.BACKGROUND_THREADS);
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> started.get() == EngineThreads.BACKGROUND_THREADS);
      release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> finished.get() == tasks);
    }
  }

  @Test
  void startUpChecksOfMoreProvidersThanBackgroundThreadsAllRun() {
    LocksmithBuilder builder =
        Locksmith.builder()
            .defaultProvider(MemoryLockProvider.isolated())
            .requireProvidersAtStartup(true);
    AtomicInteger checked = new AtomicInteger();
    for (int i = 0; i < EngineThreads.BACKGROUND_THREADS * 2; i++) {
      builder.provider(
          "p" + i,
          new ForwardingProvider(MemoryLockProvider.isolated()) {
            @Override
            public LockStatus status(String lockId) {
              checked.incrementAndGet();
              return delegate.status(lockId);
            }
          });
    }
    try (Locksmith locksmith = builder.build()) {
      assertThat(checked).hasValue(EngineThreads.BACKGROUND_THREADS * 2);
      assertThat(locksmith.health()).hasSize(EngineThreads.BACKGROUND_THREADS * 2 + 1);
    }
  }
}
