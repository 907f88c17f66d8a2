package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a signal stops in {@code locksmith run} from the moment the lease is held, COMMAND started
 * or not. The JVM's shutdown hook is run here as the JVM would run it, on a thread of its own.
 */
class SignalStopTest {
  private static final Duration GRACE = Duration.ofSeconds(2);

  @TempDir Path dir;

  private final LockProvider provider = LockProviders.create("mem:");
  private final Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build();
  private final List<String> reports = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    locksmith.close();
    provider.close();
  }

  @Test
  void aSignalAsTheLockIsGrantedHasItReleasedBeforeTheEngineCloses() throws Exception {
    // As run does: the hook closes the engine and the provider, so a release after it is lost,
    // and the lock file stays until its ttl.
    String url = "file://" + dir.toAbsolutePath();
    LockProvider shared = LockProviders.create(url);
    Locksmith engine = Locksmith.builder().defaultProvider(shared).build();
    Lease lease = engine.acquire(LockOptions.named("granted-as-stopped"));
    CountDownLatch reported = new CountDownLatch(1);
    CountDownLatch installed = new CountDownLatch(1);
    AtomicReference<SignalStop> stop = new AtomicReference<>();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    AtomicBoolean interruptedAfterHold = new AtomicBoolean(true);
    // As run's main thread: its acquire returned the lease just as the signal came.
    Thread taker =
        new Thread(
            () -> {
              try (SignalStop onSignal =
                  SignalStop.install(
                      GRACE,
                      message -> {
                        reports.add(message);
                        reported.countDown();
                      },
                      engine::close,
                      () -> {
                        engine.close();
                        shared.close();
                      })) {
                stop.set(onSignal);
                installed.countDown();
                // Not a wait that answers the hook's interrupt: the flag stays set until hold.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (reported.getCount() > 0 && System.nanoTime() - deadline < 0) {
                  Thread.onSpinWait();
                }
                try (Lease held = lease) {
                  onSignal.hold(held);
                } finally {
                  interruptedAfterHold.set(Thread.currentThread().isInterrupted());
                }
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    taker.start();
    installed.await();
    Thread hook = stop.get().hookForTests();
    hook.start();
    taker.join(10_000);
    hook.join(10_000);

    assertThat(outcome.get()).isInstanceOf(Failure.class);
    assertThat(interruptedAfterHold)
        .as("the hook's interrupt, which ended no wait, does not cut the closes that follow short")
        .isFalse();
    assertThat(reports)
        .containsExactly("stopped by a signal while waiting for the lock; nothing ran");
    try (LockProvider other = LockProviders.create(url)) {
      assertThat(other.status("granted-as-stopped").currentHolder())
          .as("released before the engine closed")
          .isEmpty();
    }
  }

  @Test
  void aSignalBeforeCommandStartsReleasesTheLockAndKeepsCommandFromStarting() throws Exception {
    Lease lease = locksmith.acquire(LockOptions.named("early"));
    try (SignalStop onSignal =
        SignalStop.install(GRACE, reports::add, locksmith::close, () -> {})) {
      onSignal.hold(lease);
      Thread hook = onSignal.hookForTests();
      hook.start();
      hook.join(10_000);

      AtomicBoolean started = new AtomicBoolean();
      assertThatThrownBy(
              () ->
                  onSignal.start(
                      () -> {
                        started.set(true);
                        throw new AssertionError("COMMAND started after the signal");
                      }))
          .isInstanceOfSatisfying(
              Failure.class,
              failure ->
                  assertThat(failure.reported())
                      .as("no second line: not an internal error, and the hook said it already")
                      .isTrue());
      assertThat(started).isFalse();
    }
    assertThat(reports)
        .containsExactly("stopped by a signal before COMMAND started; releasing the lock");
    assertThat(provider.status("early").currentHolder()).as("released").isEmpty();
  }

  @Test
  void aSignalWhileCommandStartsStopsItOnceStartedAndReleasesTheLock() throws Exception {
    Lease lease = locksmith.acquire(LockOptions.named("starting"));
    AtomicReference<ProcessGroup> group = new AtomicReference<>();
    try (SignalStop onSignal =
        SignalStop.install(GRACE, reports::add, locksmith::close, () -> {})) {
      onSignal.hold(lease);
      Thread hook = onSignal.hookForTests();
      onSignal.start(
          () -> {
            hook.start();
            // The signal came while COMMAND starts: the hook waits for the start to end.
            await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> hook.getState() == Thread.State.BLOCKED);
            try {
              group.set(
                  ProcessGroup.start(
                      new ProcessBuilder("sleep", "30")
                          .redirectOutput(ProcessBuilder.Redirect.DISCARD),
                      Launcher.detect()));
            } catch (java.io.IOException e) {
              throw new IllegalStateException(e);
            }
            return group.get();
          });
      hook.join(20_000);
      assertThat(hook.isAlive()).isFalse();
      assertThat(group.get().alive()).as("COMMAND stopped once started").isFalse();
    }
    assertThat(reports)
        .containsExactly("stopped by a signal; stopping COMMAND and releasing the lock");
    assertThat(provider.status("starting").currentHolder()).as("released").isEmpty();
  }

  @Test
  void theHookEndsOnlyOnceAnAsynchronousReleaseIsConfirmed() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        LockProvider redisProvider = LockProviders.create(redis.url());
        Locksmith engine = Locksmith.builder().defaultProvider(redisProvider).build()) {
      Lease lease = engine.acquire(LockOptions.named("paused").withTtl(Duration.ofSeconds(60)));
      try (SignalStop onSignal = SignalStop.install(GRACE, reports::add, engine::close, () -> {})) {
        onSignal.hold(lease);
        // Redis holds back writes for a moment: the release is sent and answered only after it.
        redis.call("CLIENT", "PAUSE", "700", "WRITE");
        Thread hook = onSignal.hookForTests();
        hook.start();
        hook.join(20_000);
        assertThat(hook.isAlive()).isFalse();
        // A read, which the pause does not hold back (the provider's status is a script, which it
        // does): a released lock keeps only its release marker.
        assertThat(redis.call("HKEYS", "locksmith:{paused}:lock"))
            .as("released before the hook ended (the JVM halts right after it)")
            .isEqualTo(List.of("released"));
      }
    }
  }
}
