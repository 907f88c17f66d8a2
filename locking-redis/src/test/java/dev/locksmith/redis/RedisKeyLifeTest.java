package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-lock state in Redis has a bounded life: after many distinct lock ids (such as per-entity keys
 * {@code #accountId}) were each taken and released once, every key the provider wrote has a TTL
 * within a bound, so Redis forgets them all once it passes.
 *
 * <p>The build runs {@value #DEFAULT_IDS} ids and checks the TTLs. The full measurement, which also
 * waits for the keys to expire (about 70 s), is run by hand:
 *
 * <pre>
 * ./mvnw -o -pl locking-redis verify -Dtest=RedisKeyLifeTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dlocksmith.redis.keyLife.ids=100000 -Dlocksmith.redis.keyLife.awaitExpiry=true
 * </pre>
 */
class RedisKeyLifeTest {
  private static final Logger LOG = LoggerFactory.getLogger(RedisKeyLifeTest.class);
  private static final int DEFAULT_IDS = 10_000;
  private static final int IDS = Integer.getInteger("locksmith.redis.keyLife.ids", DEFAULT_IDS);
  private static final boolean AWAIT_EXPIRY =
      Boolean.getBoolean("locksmith.redis.keyLife.awaitExpiry");
  private static final Duration TTL = Duration.ofSeconds(5);

  /**
   * The longest life any key may have once its lease was released: the fencing counter's, the
   * lease's TTL plus a minute, which is longer than the release record's minute.
   */
  private static final long BOUND_MILLIS = TTL.toMillis() + 60_000;

  /** KEYS matching ARGV[1]: {count, keys without a TTL, longest PTTL in ms}. */
  private static final String KEY_LIVES =
      """
      local keys = redis.call('KEYS', ARGV[1])
      local forever, longest = 0, 0
      for _, key in ipairs(keys) do
        local pttl = redis.call('PTTL', key)
        if pttl < 0 then
          forever = forever + 1
        elseif pttl > longest then
          longest = pttl
        end
      end
      return {#keys, forever, longest}
      """;

  @Test
  void everyKeyOfManyLockIdsTakenOnceHasABoundedLife() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        RedisLockProvider provider = RedisLockProvider.create(redis.url() + "?prefix=life")) {
      long keysBefore = (Long) redis.call("DBSIZE");
      long memoryBefore = usedMemory(redis);

      long started = System.nanoTime();
      takeAndReleaseEach(provider, IDS);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

      long keysAfter = (Long) redis.call("DBSIZE");
      long memoryAfter = usedMemory(redis);
      List<?> lives = (List<?>) redis.call("EVAL", KEY_LIVES, "0", "life:*");
      long count = (Long) lives.get(0);
      long forever = (Long) lives.get(1);
      long longest = (Long) lives.get(2);
      LOG.info(
          "{} lock ids taken and released once in {} ms: DBSIZE {} -> {}, used_memory {} -> {}"
              + " bytes; {} Locksmith keys, {} without a TTL, longest PTTL {} ms",
          IDS,
          tookMillis,
          keysBefore,
          keysAfter,
          memoryBefore,
          memoryAfter,
          count,
          forever,
          longest);

      assertThat(forever).as("Locksmith keys that would live forever").isZero();
      assertThat(longest).as("longest PTTL of a Locksmith key").isLessThanOrEqualTo(BOUND_MILLIS);
      assertThat(count)
          .as("keys per lock id: the release record and the counter")
          .isLessThan(2L * IDS + 1);

      if (AWAIT_EXPIRY) {
        long finished = System.nanoTime();
        await()
            .atMost(Duration.ofMillis(BOUND_MILLIS).plusSeconds(30))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> (Long) redis.call("DBSIZE") == keysBefore);
        LOG.info(
            "{} ms later every Locksmith key had expired: DBSIZE {}, used_memory {} bytes",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - finished),
            redis.call("DBSIZE"),
            usedMemory(redis));
      }
    }
  }

  @Test
  void aLockIdWhoseCounterExpiredStillGetsAGreaterToken() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        RedisLockProvider provider = RedisLockProvider.create(redis.url() + "?prefix=gone")) {
      String id = RedisTests.lockId();
      LockKeys keys = LockKeys.of("gone", id);
      long last = 0;
      for (int round = 0; round < 5; round++) {
        LeaseGrant lease = provider.tryAcquire(request(id, TTL)).orElseThrow();
        assertThat(lease.fencingToken()).isGreaterThan(last);
        last = lease.fencingToken();
        assertThat(provider.release(lease)).isTrue();
        // What the expiry of both keys leaves: nothing.
        redis.call("DEL", keys.lock(), keys.fence());
      }
    }
  }

  private static void takeAndReleaseEach(RedisLockProvider provider, int ids) throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        workers.add(
            pool.submit(
                () -> {
                  for (int i = first; i < ids; i += threads) {
                    LeaseGrant lease =
                        provider.tryAcquire(request("account:" + i, TTL)).orElseThrow();
                    assertThat(provider.release(lease)).isTrue();
                  }
                  return null;
                }));
      }
      for (Future<?> worker : workers) {
        worker.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static long usedMemory(RedisServerProcess redis) throws Exception {
    Matcher matcher =
        Pattern.compile("used_memory:(\\d+)").matcher(String.valueOf(redis.call("INFO", "memory")));
    assertThat(matcher.find()).as("used_memory in INFO memory").isTrue();
    return Long.parseLong(matcher.group(1));
  }
}
