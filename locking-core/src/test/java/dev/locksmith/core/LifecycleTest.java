package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Start-up checks across methods and the engine's graceful shutdown. */
class LifecycleTest {
  private final MemoryLockProvider provider = MemoryLockProvider.isolated();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  static class Billing {
    static class Jobs {
      @DistributedLock
      void run() {}
    }
  }

  static class Reports {
    static class Jobs {
      @DistributedLock
      void run() {}

      @DistributedLock(name = "Jobs.run")
      void runDeclared() {}
    }
  }

  static class Named {
    static class First {
      @DistributedLock(name = "nightly")
      void run() {}
    }

    static class Second {
      @DistributedLock(name = "nightly")
      void run() {}
    }
  }

  static class BaseJob {
    @DistributedLock
    void run() {}
  }

  static class SubJob extends BaseJob {
    @Override
    @DistributedLock
    void run() {}
  }

  @Test
  void twoMethodsWhoseDefaultNamesCollideFailAtValidationNamingBoth() {
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      locksmith.validate(Billing.Jobs.class);
      assertThatThrownBy(() -> locksmith.validate(Reports.Jobs.class))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("LifecycleTest$Reports$Jobs.run")
          .hasMessageContaining("the lock name 'Jobs.run' is also the default name of")
          .hasMessageContaining("LifecycleTest$Billing$Jobs.run()")
          .hasMessageContaining("explicit name");
    }
  }

  @Test
  void methodsThatDeclareTheSameNameShareItAsDoOverrides() {
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      locksmith.validate(Named.First.class);
      locksmith.validate(Named.Second.class);
      locksmith.validate(BaseJob.class);
      assertThat(locksmith.validate(SubJob.class)).isEqualTo(2);
    }
  }

  static class Job {
    final CountDownLatch inside = new CountDownLatch(1);
    final CountDownLatch finish = new CountDownLatch(1);

    @DistributedLock(name = "shutdown-job", minHold = "0s")
    void work() throws InterruptedException {
      inside.countDown();
      finish.await();
    }
  }

  @Test
  void closeWaitsForRunningCallsThenReleasesTheirLeases() throws Exception {
    Locksmith locksmith = engine(provider, Duration.ofSeconds(20));
    Job job = new Job();
    Future<?> running = started(locksmith, job);
    Lease explicit = locksmith.acquire(LockOptions.named("held-by-the-application"));
    Future<?> closing = pool.submit(locksmith::close);
    await().atMost(Duration.ofSeconds(5)).until(() -> isClosing(locksmith));
    assertStillClosing(closing);
    job.finish.countDown();
    running.get(5, TimeUnit.SECONDS);
    closing.get(5, TimeUnit.SECONDS);
    assertThat(provider.tryAcquire(LockRequest.of("shutdown-job", Duration.ofSeconds(1))))
        .as("the job's lease was released as the call ended")
        .isPresent();
    assertThat(explicit.isValid()).as("an application's own lease is not waited for").isTrue();
  }

  private static Locksmith engine(LockProvider backend, Duration shutdownTimeout) {
    return Locksmith.builder().defaultProvider(backend).shutdownTimeout(shutdownTimeout).build();
  }

  /** Runs {@code job} through {@code locksmith} on the pool; returns once it is inside its lock. */
  private Future<?> started(Locksmith locksmith, Job job) throws InterruptedException {
    Future<?> running = pool.submit(() -> call(locksmith, job, "work"));
    job.inside.await();
    return running;
  }

  /** Asserts that {@code closing} does not end for 300 ms. */
  private static void assertStillClosing(Future<?> closing) {
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !closing.isDone());
  }

  private static boolean isClosing(Locksmith locksmith) {
    try {
      locksmith.tryAcquire(LockOptions.named("new")).ifPresent(Lease::close);
      return false;
    } catch (IllegalStateException closing) {
      return true;
    }
  }

  @Test
  void closeWaitsForARunningCallWhoseLeaseWasLostThenReleasesBeforeItReturns() throws Exception {
    // A lease lost while its call runs stopped counting the call as running: close() returned at
    // once and the owner closed the provider, which the call's release then reached.
    CountDownLatch releasing = new CountDownLatch(1);
    GatedReleaseProvider gated =
        new GatedReleaseProvider(provider, releasing, new CountDownLatch(0));
    RecordingListener events = new RecordingListener();
    Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(gated)
            .listener(events)
            .shutdownTimeout(Duration.ofSeconds(20))
            .build();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    LockOptions shortLease =
        LockOptions.named("lost-while-running").withTtl(Duration.ofMillis(100)).withRenew(false);
    Future<Boolean> running =
        pool.submit(
            () ->
                locksmith.run(
                    shortLease,
                    () -> {
                      inside.countDown();
                      finish.await();
                    }));
    assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.events.contains("lost lost-while-running"));

    Future<?> closing = pool.submit(locksmith::close);
    assertStillClosing(closing);
    assertThat(releasing.getCount()).as("no release before the call ended").isEqualTo(1);
    finish.countDown();
    assertThat(running.get(5, TimeUnit.SECONDS)).isTrue();
    closing.get(5, TimeUnit.SECONDS);
    assertThat(gated.released).as("released before close() returned").isTrue();
  }

  @Test
  void aLeaseClosedOnTwoThreadsAtOnceReturnsOnBothOnlyOnceItsReleaseIsUnderWay() throws Exception {
    // The second close returned at once while the first was still starting the release, and its
    // caller (locksmith run's main thread, beside its signal hook) closed the engine and the
    // provider under that release: the lock stayed held until its ttl.
    CountDownLatch releasing = new CountDownLatch(1);
    CountDownLatch letRelease = new CountDownLatch(1);
    GatedReleaseProvider gated = new GatedReleaseProvider(provider, releasing, letRelease);
    Locksmith locksmith = engine(gated, Duration.ofSeconds(20));
    Lease lease = locksmith.acquire(LockOptions.named("closed-twice"));

    Future<?> first = pool.submit(lease::close);
    assertThat(releasing.await(5, TimeUnit.SECONDS)).isTrue();
    Future<?> second = pool.submit(lease::close);
    assertStillClosing(second);

    letRelease.countDown();
    first.get(5, TimeUnit.SECONDS);
    second.get(5, TimeUnit.SECONDS);
    assertThat(gated.released).as("released before the second close returned").isTrue();
    locksmith.close();
  }

  @Test
  void closeGivesUpAfterItsTimeout() throws Exception {
    Locksmith locksmith = engine(provider, Duration.ofMillis(200));
    Job job = new Job();
    Future<?> running = started(locksmith, job);
    long start = System.nanoTime();
    locksmith.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
    job.finish.countDown();
    running.get(5, TimeUnit.SECONDS);
  }

  @Test
  void closeWaitsForTheReleaseOfAnEndedCallBeforeItReturns() throws Exception {
    // An engine's owner closes the providers once close() returns (a DI container destroys the
    // provider beans after the engine); a release still going out must keep close() waiting.
    assertCloseWaitsForTheRelease(
        locksmith -> {
          Job job = new Job();
          Future<?> running = started(locksmith, job);
          job.finish.countDown();
          return running;
        });
  }

  @Test
  void closeWaitsForTheReleaseOfAnApplicationsLeaseGoingOutOnItsThread() throws Exception {
    // The in-memory provider answers a release on the thread that closes the lease; the engine's
    // close returned meanwhile, and its owner closed the provider under the release.
    assertCloseWaitsForTheRelease(
        locksmith ->
            pool.submit(locksmith.acquire(LockOptions.named("by-the-application"))::close));
  }

  /** What ends a lease while the test waits, on another thread. */
  @FunctionalInterface
  private interface Ending {
    Future<?> start(Locksmith locksmith) throws InterruptedException;
  }

  /**
   * Ends a lease, then closes the engine while the lease's release is held up on the provider:
   * close() returns only after the release went out.
   */
  private void assertCloseWaitsForTheRelease(Ending ending) throws Exception {
    CountDownLatch releasing = new CountDownLatch(1);
    CountDownLatch letRelease = new CountDownLatch(1);
    GatedReleaseProvider gated = new GatedReleaseProvider(provider, releasing, letRelease);
    Locksmith locksmith = engine(gated, Duration.ofSeconds(20));
    Future<?> ended = ending.start(locksmith);
    assertThat(releasing.await(5, TimeUnit.SECONDS)).isTrue();
    Future<?> closing = pool.submit(locksmith::close);
    assertStillClosing(closing);
    letRelease.countDown();
    ended.get(5, TimeUnit.SECONDS);
    closing.get(5, TimeUnit.SECONDS);
    assertThat(gated.released).as("released before close() returned").isTrue();
  }
}
