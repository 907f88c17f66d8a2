package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.testkit.ChildJvm;
import io.micronaut.context.ApplicationContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closing the application while a scheduled locked job runs lets the job finish and release its
 * lock before the engine, the providers and the application's RedissonClient close: another client
 * waiting for the lock gets it soon after the job's end (asserted: within a quarter of the job's 30
 * s TTL; it takes milliseconds). Once by closing the context in this JVM, once by SIGTERM to an
 * application in a JVM of its own, both with Micronaut's graceful shutdown on (the scheduler lets
 * its running jobs end before any bean is destroyed). Without it, closing the engine itself waits
 * for the running job.
 */
class ShutdownHandOverTest {
  private static final Logger LOG = LoggerFactory.getLogger(ShutdownHandOverTest.class);

  /**
   * Well inside the jobs' 30 s TTL: the lock was handed over, not left to expire; wide enough for a
   * loaded machine (a child JVM that shuts down meanwhile).
   */
  private static final Duration HAND_OVER_BOUND = Duration.ofSeconds(30).dividedBy(4);

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** The lock directory's allowance for clock skew, added to every expiry. */
  private static final Duration FILE_SKEW = Duration.ofSeconds(2);

  /** Micronaut's graceful shutdown, which the README recommends for scheduled locked jobs. */
  private static final String GRACEFUL_SHUTDOWN = "micronaut.lifecycle.graceful-shutdown.enabled";

  private static final Map<String, String> GRACEFUL = Map.of(GRACEFUL_SHUTDOWN, "true");

  @ParameterizedTest
  @EnumSource(Backend.Kind.class)
  void closingTheContextLetsTheRunningJobEndAndHandsTheLockOver(Backend.Kind kind)
      throws Exception {
    try (Backend backend = Backend.start(kind);
        Locksmith other = otherClient(backend)) {
      ApplicationContext context = start(backend.environments("handover"), backend, GRACEFUL);
      RedissonClient appClient =
          kind == Backend.Kind.REDISSON ? context.getBean(RedissonClient.class) : null;
      HandOverJob job = context.getBean(HandOverJob.class);
      assertThat(job.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Long> granted = waitForTheLock(other, HandOverJob.LOCK);

      context.close();

      assertThat(job.ended.getCount()).as("close returned before the job ended").isZero();
      assertThat(job.interrupted).as("the job was interrupted").isFalse();
      if (appClient != null) {
        assertThat(appClient.isShutdown()).as("the context shut the app's client down").isTrue();
      }
      long grantedAt = granted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Duration handOver = Duration.ofNanos(grantedAt - job.endedAt);
      LOG.info(
          "{}: context close, lock granted to another client {} ms after the job ended",
          kind,
          handOver.toMillis());
      assertThat(handOver).isPositive().isLessThan(HAND_OVER_BOUND);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Backend.Kind.class,
      names = {"REDIS", "TCP", "FILE"})
  void aMinimumHoldOutlivesTheShutdownAndEndsOnTime(Backend.Kind kind) throws Exception {
    try (Backend backend = Backend.start(kind);
        Locksmith other = otherClient(backend)) {
      ApplicationContext context = start(new String[] {"handover-minhold"}, backend, GRACEFUL);
      MinHoldJob job = context.getBean(MinHoldJob.class);
      assertThat(job.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Long> granted = waitForTheLock(other, MinHoldJob.LOCK);

      context.close();

      assertThat(job.endedAt).as("the job ended").isPositive();
      long grantedAt = granted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Duration afterMinHold = Duration.ofNanos(grantedAt - job.minHoldEndsAt);
      LOG.info(
          "{}: minimum hold 3 s across shutdown, lock granted to another client {} ms after it"
              + " ended",
          kind,
          afterMinHold.toMillis());
      // Never before the minimum hold ends; then well before the TTL would, plus the lock
      // directory's allowance for clock skew between hosts, which it adds to every expiry.
      Duration bound = HAND_OVER_BOUND.plus(kind == Backend.Kind.FILE ? FILE_SKEW : Duration.ZERO);
      assertThat(afterMinHold).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(bound);
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.Kind.class)
  void withoutGracefulShutdownClosingTheEngineStillWaitsForTheRunningJob(Backend.Kind kind)
      throws Exception {
    try (Backend backend = Backend.start(kind)) {
      ApplicationContext context = start(backend.environments("handover"), backend, Map.of());
      HandOverJob job = context.getBean(HandOverJob.class);
      assertThat(job.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      context.close();

      assertThat(job.ended.getCount()).as("close returned before the job ended").isZero();
      assertThat(job.interrupted).as("the job was interrupted").isFalse();
      try (Locksmith other = otherClient(backend)) {
        assertThat(other.tryAcquire(LockOptions.named(HandOverJob.LOCK)))
            .as("released before the providers closed, not left to its 30 s ttl")
            .isPresent()
            .get()
            .satisfies(Lease::close);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Backend.Kind.class,
      names = {"REDIS", "TCP", "FILE"})
  void sigtermToAnApplicationLetsTheRunningJobEndAndHandsTheLockOver(
      Backend.Kind kind, @TempDir Path dir) throws Exception {
    Path events = dir.resolve("events");
    Path log = dir.resolve("app.log");
    try (Backend backend = Backend.start(kind);
        Locksmith other = otherClient(backend)) {
      List<String> args = new ArrayList<>();
      args.add("handover");
      backend.properties().forEach((key, value) -> args.add(key + "=" + value));
      args.add("handover.events=" + events);
      args.add(GRACEFUL_SHUTDOWN + "=true");
      try (ChildJvm app =
          ChildJvm.builder(ChildApp.class)
              .jvmOptions("-Xmx128m", "-XX:TieredStopAtLevel=1")
              .args(args)
              .output(log)
              .start()) {
        await().atMost(TIMEOUT).until(() -> Files.exists(events) || !app.isAlive());
        assertThat(app.isAlive()).as("the application exited: %s", read(log)).isTrue();
        CompletableFuture<Long> granted = waitForTheLock(other, HandOverJob.LOCK);

        app.terminate();

        assertThat(app.process().waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String output = read(log);
        assertThat(output).contains("context closed");
        String ended =
            Files.readAllLines(events, StandardCharsets.UTF_8).stream()
                .filter(line -> line.startsWith("ended "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the job never ended: " + output));
        assertThat(ended).as("the job was interrupted").doesNotContain("interrupted");
        long endedAt = Long.parseLong(ended.split(" ")[1]);
        long grantedAt = granted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Duration handOver = Duration.ofNanos(grantedAt - endedAt);
        LOG.info(
            "{}: SIGTERM, lock granted to another client {} ms after the job ended",
            kind,
            handOver.toMillis());
        assertThat(handOver).isPositive().isLessThan(HAND_OVER_BOUND);
      }
    }
  }

  @Test
  void theShutdownTimeoutBoundsHowLongClosingWaitsForARunningJob() throws Exception {
    try (Backend backend = Backend.start(Backend.Kind.FILE)) {
      ApplicationContext context =
          start(
              new String[] {"handover"},
              backend,
              // Work far longer than the 200 ms timeout, so a slow close still ends before it.
              Map.of("locksmith.shutdown-timeout", "200ms", "handover.work-millis", "5000"));
      HandOverJob job = context.getBean(HandOverJob.class);
      assertThat(job.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      long start = System.nanoTime();
      context.close();
      Duration closing = Duration.ofNanos(System.nanoTime() - start);

      assertThat(job.ended.getCount()).as("the 5 s job is still running").isOne();
      assertThat(closing).isLessThan(Duration.ofSeconds(5));
      assertThat(job.ended.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }

  private static Locksmith otherClient(Backend backend) {
    return Locksmith.builder().settings(new LocksmithSettings(backend.url(), Map.of())).build();
  }

  /** The application on {@code backend}, with {@code extra} added to the backend's properties. */
  private static ApplicationContext start(
      String[] environments, Backend backend, Map<String, String> extra) {
    Map<String, String> properties = backend.properties();
    properties.putAll(extra);
    return ApplicationContext.builder()
        .environments(environments)
        .properties(Map.copyOf(properties))
        .start();
  }

  /** Another client waiting for the job's lock; completes with the time it was granted. */
  private static CompletableFuture<Long> waitForTheLock(Locksmith other, String lock) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (Lease lease = other.acquire(LockOptions.named(lock).withWaitTimeout(TIMEOUT))) {
            return System.nanoTime();
          }
        });
  }

  private static String read(Path log) throws java.io.IOException {
    return Files.exists(log) ? Files.readString(log) : "(no output)";
  }
}
