package dev.locksmith.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The raw Redis baseline must be a real lock, or the ratios against it mean nothing. */
class RawRedisLockTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static RedissonClient holderClient;
  private static RedissonClient waiterClient;

  @BeforeAll
  static void connect() {
    String url = TestRedis.sharedUrl();
    holderClient = RedisClients.create(url, 2);
    waiterClient = RedisClients.create(url, 2);
  }

  @AfterAll
  static void disconnect() {
    holderClient.shutdown();
    waiterClient.shutdown();
  }

  @Test
  void secondOwnerIsRefusedAndForeignTokenCannotUnlock() {
    RawRedisLock lock = new RawRedisLock(holderClient);
    String token = lock.tryLock("raw-exclusive", TTL);

    assertThat(token).isNotNull();
    assertThat(lock.tryLock("raw-exclusive", TTL)).isNull();
    assertThat(lock.unlock("raw-exclusive", "someone-else")).isFalse();
    assertThat(lock.tryLock("raw-exclusive", TTL)).as("still held after a foreign unlock").isNull();
    assertThat(lock.unlock("raw-exclusive", token)).isTrue();
    assertThat(lock.unlock("raw-exclusive", token)).as("a second unlock finds nothing").isFalse();
  }

  @Test
  void theFencedVariantIsTheSameLockAndCountsItsGrants() {
    RawRedisLock lock = RawRedisLock.fenced(holderClient);
    String key = "raw-fenced-" + System.nanoTime();
    String token = lock.tryLock(key, TTL);

    assertThat(token).isNotNull();
    assertThat(lock.tryLock(key, TTL)).isNull();
    assertThat(lock.unlock(key, "someone-else")).isFalse();
    assertThat(lock.unlock(key, token)).isTrue();
    assertThat(lock.tryLock(key, TTL)).isNotNull();
    assertThat(
            holderClient
                .<String>getBucket(key + ":fence", org.redisson.client.codec.StringCodec.INSTANCE)
                .get())
        .as("one increment per grant, none for the refused tries")
        .isEqualTo("2");
  }

  @Test
  void waiterIsWokenByTheReleaseMessageLongBeforeItsRetryTimer() throws Exception {
    RawRedisLock holder = new RawRedisLock(holderClient);
    RawRedisLock waiter = new RawRedisLock(waiterClient);
    String token = holder.tryLock("raw-handoff", TTL);
    assertThat(token).isNotNull();
    // Subscribes the waiter's channel first, so the release below cannot be missed.
    assertThat(waiter.lock("raw-handoff", TTL, Duration.ofMillis(1))).isNull();

    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<String> taken =
        CompletableFuture.supplyAsync(
            () -> {
              waiting.countDown();
              try {
                return waiter.lock("raw-handoff", TTL, Duration.ofSeconds(10));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(taken).isNotDone();

    assertThat(holder.unlock("raw-handoff", token)).isTrue();

    String waiterToken = taken.get(5, TimeUnit.SECONDS);
    assertThat(waiterToken).isNotNull().isNotEqualTo(token);
    assertThat(waiter.unlock("raw-handoff", waiterToken)).isTrue();
  }
}
