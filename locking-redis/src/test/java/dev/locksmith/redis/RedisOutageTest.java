package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis down when the provider is created, killed while it is used, or silent: creating a provider
 * needs no server, a failing call takes at most one command's worst case with the URL's default
 * settings ({@link RedisUrl#DEFAULT_WORST_CASE}, 2 s) and says what happened in one line, and a
 * wait never starts a command after its timeout.
 */
class RedisOutageTest {
  private static final Logger LOG = LoggerFactory.getLogger(RedisOutageTest.class);

  /** One command's worst case with the default settings, as the README states it. */
  private static final Duration BOUND = RedisUrl.DEFAULT_WORST_CASE;

  /**
   * How late Redisson's timers may fire past the formula on this shared 2-core machine: the
   * response timeout and the retry pause are timer tasks (measured 30 to 70 ms late); only the case
   * of a server that never answers runs to the full formula.
   */
  private static final Duration TIMER_SLACK = Duration.ofMillis(500);

  private static final int CALLS = 20;

  @Test
  void aProviderIsCreatedWithoutAServerAndWorksOnceRedisIsUp() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      redis.stop(); // nothing listens on its port now
      // Load Redisson's and Netty's classes first (up to 0.7 s in a cold JVM on a loaded machine),
      // so that the time measured below is what creation waits for, not class loading.
      RedisLockProvider.create(redis.url()).close();
      long start = System.nanoTime();
      RedisLockProvider provider = RedisLockProvider.create(redis.url());
      Duration creation = since(start);
      try (provider) {
        assertThat(creation).as("creation without a server").isLessThan(Duration.ofSeconds(1));

        String id = lockId();
        long call = System.nanoTime();
        assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
            .isInstanceOf(LockProviderException.class)
            .hasMessageStartingWith(acquireFailure(redis, id, "unreachable: connection refused"));
        assertThat(since(call)).as("a call while nothing listens").isLessThanOrEqualTo(BOUND);

        redis.restart();
        LeaseGrant lease = acquireOnceBack(provider, id);
        assertThat(provider.status(id).currentHolder().orElseThrow().fencingToken())
            .isEqualTo(lease.fencingToken());
        assertThat(provider.release(lease)).isTrue();
      }
    }
  }

  @Test
  void failingCallsWhileRedisIsKilledAreBoundedAndSayWhatHappenedInOneLine() {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        RedisLockProvider provider = RedisLockProvider.create(redis.url())) {
      String id = lockId();
      LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();

      redis.stop();
      List<Consumer<RedisLockProvider>> calls =
          List.of(
              p -> p.tryAcquire(request(lockId(), Duration.ofSeconds(30))),
              p -> p.renew(lease, Duration.ofSeconds(30)),
              p -> p.release(lease),
              p -> p.status(id));
      List<Long> millis = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        Consumer<RedisLockProvider> call = calls.get(i % calls.size());
        long start = System.nanoTime();
        assertThatThrownBy(() -> call.accept(provider))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("127.0.0.1:" + redis.port() + " unreachable: ")
            .hasMessageNotContaining("redis.call")
            .hasMessageNotContaining("CPU")
            .hasMessageNotContaining("\n")
            .hasMessageNotContaining("\r")
            .satisfies(e -> assertThat(e.getCause()).as("Redisson's exception").isNotNull());
        millis.add(since(start).toMillis());
      }
      Collections.sort(millis);
      LOG.info(
          "{} calls with Redis killed, default settings: p50 {} ms, max {} ms (bound {} ms)",
          CALLS,
          millis.get(CALLS / 2),
          millis.get(CALLS - 1),
          BOUND.toMillis());
      assertThat(millis.get(CALLS - 1)).as("slowest failing call, ms").isLessThan(BOUND.toMillis());
    }
  }

  @Test
  void aServerThatNeverAnswersFailsAfterTheResponseTimeoutAndItsRetrySayingSo() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        RedisLockProvider provider =
            RedisLockProvider.create("redis://" + proxy.host() + ":" + proxy.port())) {
      String id = lockId();
      LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();

      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      long start = System.nanoTime();
      assertThatThrownBy(() -> provider.renew(lease, Duration.ofSeconds(30)))
          .isInstanceOf(LockProviderException.class)
          .hasMessage(
              "Redis redis://"
                  + proxy.host()
                  + ":"
                  + proxy.port()
                  + " failed to renew lock '"
                  + id
                  + "': "
                  + proxy.host()
                  + ":"
                  + proxy.port()
                  + " did not answer within 800ms");
      Duration took = since(start);
      LOG.info(
          "a call to a Redis that never answers, default settings: {} ms (bound {} ms)",
          took.toMillis(),
          BOUND.toMillis());
      assertThat(took)
          .as("a call that gets no reply")
          .isGreaterThanOrEqualTo(BOUND.minus(RedisUrl.DEFAULT_RETRY_INTERVAL))
          .isLessThanOrEqualTo(BOUND.plus(TIMER_SLACK));
    }
  }

  @Test
  void aWaitThatRedisStopsUnderEndsWithinItsTimeoutPlusOneCommand() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        RedisLockProvider provider = RedisLockProvider.create(redis.url())) {
      String id = lockId();
      provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      Duration timeout = Duration.ofMillis(500);

      long start = System.nanoTime();
      CompletableFuture<Duration> waiter =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  assertThat(provider.acquire(request(id, Duration.ofSeconds(30)), timeout))
                      .as("a lock held by another")
                      .isEmpty();
                } catch (LockProviderException expected) {
                  // A command started before the deadline may fail: Redis is gone.
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                return since(start);
              });
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.subscribedChannels() == 1);
      redis.stop();

      Duration took = waiter.get(timeout.plus(BOUND).toMillis() + 5_000, TimeUnit.MILLISECONDS);
      LOG.info(
          "a {} ms wait with Redis stopped mid-wait: {} ms (bound {} ms)",
          timeout.toMillis(),
          took.toMillis(),
          timeout.plus(BOUND).toMillis());
      assertThat(took).as("the wait").isLessThanOrEqualTo(timeout.plus(BOUND));
    }
  }

  @Test
  void aFullRedisRefusesAnAcquireWithItsReplyInOneLine() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated("--maxmemory-policy", "noeviction");
        RedisLockProvider provider = RedisLockProvider.create(redis.url())) {
      String id = lockId();
      provider.release(provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow());

      redis.call("CONFIG", "SET", "maxmemory", "1"); // used memory is above that: writes refused
      assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageStartingWith(
              acquireFailure(
                  redis,
                  id,
                  "is out of memory: command not allowed when used memory > 'maxmemory'"))
          .hasMessageNotContaining("redis.call")
          .hasMessageNotContaining("channel")
          .hasMessageNotContaining("script")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void aFullRedisStillReleasesSoTheLockIsFreeOnceMemoryIsBack() throws Exception {
    // A release wrote its record before removing the lease: a full Redis refused that write, and
    // every finished lock then stayed held for the rest of its ttl.
    try (RedisServerProcess redis = TestRedis.startDedicated("--maxmemory-policy", "noeviction");
        RedisLockProvider provider = RedisLockProvider.create(redis.url())) {
      String id = lockId();
      LeaseGrant held = provider.tryAcquire(request(id, Duration.ofMinutes(5))).orElseThrow();

      redis.call("CONFIG", "SET", "maxmemory", "1"); // used memory is above that: writes refused
      assertThat(provider.release(held)).isTrue();
      assertThat(provider.status(id).currentHolder()).as("the lock, free").isEmpty();

      redis.call("CONFIG", "SET", "maxmemory", "0");
      LeaseGrant next = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(provider.release(next)).isTrue();
    }
  }

  @Test
  void anInterruptWhileTheClientFirstConnectsLeavesTheProviderWorking() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      redis.stop();
      try (RedisLockProvider provider = RedisLockProvider.create(redis.url())) {
        String id = lockId();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread caller =
            new Thread(
                () -> {
                  try {
                    provider.tryAcquire(request(id, Duration.ofSeconds(30)));
                    outcome.complete(new AssertionError("acquired while Redis was down"));
                  } catch (RuntimeException e) {
                    outcome.complete(e);
                  }
                },
                "interrupted-caller");
        caller.start();
        // Interrupt it while it waits for the first connection (Redisson pauses between attempts).
        await()
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(5))
            .until(
                () ->
                    caller.getState() == Thread.State.WAITING
                        || caller.getState() == Thread.State.TIMED_WAITING
                        || outcome.isDone());
        caller.interrupt();
        assertThat(outcome.get(BOUND.toMillis() + 5_000, TimeUnit.MILLISECONDS))
            .as("the interrupted call")
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("unreachable: connection refused");
        caller.join(5_000);

        redis.restart();
        LeaseGrant lease = acquireOnceBack(provider, id);
        assertThat(provider.release(lease)).isTrue();
      }
    }
  }

  /** Acquires {@code id} as soon as the restarted server answers, within 10 s. */
  private static LeaseGrant acquireOnceBack(RedisLockProvider provider, String id) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .ignoreException(LockProviderException.class)
        .until(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))), Optional::isPresent)
        .orElseThrow();
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /** The start of the one-line error of an acquire on {@code redis} that failed for {@code why}. */
  private static String acquireFailure(RedisServerProcess redis, String id, String why) {
    return "Redis "
        + redis.url()
        + " failed to acquire lock '"
        + id
        + "': 127.0.0.1:"
        + redis.port()
        + " "
        + why;
  }
}
