package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** Closing a provider ends its waits at once, with a LockProviderException, and unsubscribes. */
class RedisCloseTest {
  private static final Duration LONG = Duration.ofMinutes(5);

  /** Waits on {@code id} in a new thread; completes with what acquire threw (or an error). */
  private static CompletableFuture<Throwable> waitFor(RedisLockProvider provider, String id) {
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                outcome.complete(
                    new AssertionError("returned " + provider.acquire(request(id, LONG), LONG)));
              } catch (Throwable e) {
                outcome.complete(e);
              }
            });
    waiter.setDaemon(true);
    waiter.start();
    return outcome;
  }

  @Test
  void closingWakesWaitersWhichThrowAndHoldNothing() throws Exception {
    String url = RedisTests.sharedUrl();
    try (RedisLockProvider holder = RedisLockProvider.create(url)) {
      RedisLockProvider closing = RedisLockProvider.create(url);
      String id = lockId();
      LeaseGrant held = holder.tryAcquire(request(id, LONG)).orElseThrow();
      CompletableFuture<Throwable> outcome = waitFor(closing, id);
      await().atMost(Duration.ofSeconds(10)).until(() -> closing.subscribedChannels() == 1);
      assertThat(outcome).isNotDone();

      long start = System.nanoTime();
      closing.close();
      assertThat(outcome.get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("provider closed");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(closing.subscribedChannels()).isZero();
      assertThat(holder.status(id).holder().fencingToken()).isEqualTo(held.fencingToken());
      assertThat(holder.release(held)).isTrue();
    }
  }

  @Test
  void closingAProviderOverASuppliedClientRemovesItsListenersAndLeavesTheClientUsable()
      throws Exception {
    Config config = new Config().setThreads(2).setNettyThreads(4);
    config.useSingleServer().setAddress(TestRedis.sharedUrl()).setConnectionMinimumIdleSize(1);
    RedissonClient client = Redisson.create(config);
    try {
      RedisLockOptions options = RedisLockOptions.defaults().withPrefix("close-" + lockId());
      RedisLockProvider holder = RedisLockProvider.create(client, options);
      RedisLockProvider closing = RedisLockProvider.create(client, options);
      String id = lockId();
      LeaseGrant held = holder.tryAcquire(request(id, LONG)).orElseThrow();
      RTopic topic =
          client.getTopic(LockKeys.of(options.prefix(), id).channel(), StringCodec.INSTANCE);
      List<CompletableFuture<Throwable>> outcomes =
          List.of(waitFor(closing, id), waitFor(closing, id));
      await().atMost(Duration.ofSeconds(10)).until(() -> topic.countListeners() == 2);

      closing.close();
      for (CompletableFuture<Throwable> outcome : outcomes) {
        assertThat(outcome.get(10, TimeUnit.SECONDS))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("provider closed");
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> topic.countListeners() == 0);
      assertThat(closing.subscribedChannels()).isZero();
      assertThat(client.isShutdown()).isFalse();
      assertThat(holder.release(held)).isTrue();
      holder.close();
    } finally {
      client.shutdown();
    }
  }
}
