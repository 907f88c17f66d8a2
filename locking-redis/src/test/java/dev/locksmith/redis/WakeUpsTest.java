package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Release channels are subscribed, joined, kept for a moment after their last waiter and dropped,
 * over and over, without a hitch.
 */
class WakeUpsTest {
  private static RedissonClient client;

  @BeforeAll
  static void connect() {
    Config config = new Config().setThreads(2).setNettyThreads(4);
    config.useSingleServer().setAddress(TestRedis.sharedUrl()).setConnectionMinimumIdleSize(1);
    client = Redisson.create(config);
  }

  @AfterAll
  static void disconnect() {
    client.shutdown();
  }

  @Test
  void aChannelResubscribedRightAfterItsLastWaiterLeftStillWakesItsWaiter() throws Exception {
    // Each round drops the subscription asynchronously and subscribes again at once, as a waiter
    // that takes the lock and a new waiter for the next hand-off do.
    WakeUps wakeUps = new WakeUps(client);
    String channel = "wakeups-test-" + RedisTests.lockId();
    try {
      for (int round = 0; round < 200; round++) {
        assertWokenByAMessage(wakeUps, channel, "round " + round);
      }
    } finally {
      wakeUps.close();
    }
  }

  @Test
  void aChannelLingersAfterItsLastWaiterLeftThenIsDroppedAndAtMostFourLinger() throws Exception {
    WakeUps wakeUps = new WakeUps(client);
    String channel = "wakeups-test-" + RedisTests.lockId();
    try {
      wakeUps.unregister(wakeUps.register(channel));
      assertThat(wakeUps.subscribedChannels()).as("channels with waiters").isZero();
      assertThat(wakeUps.subscriptions()).as("lingering").isEqualTo(1);
      assertThat(subscribers(channel)).isEqualTo(1L);

      // A waiter that comes meanwhile joins the subscription in place and is woken by a message.
      assertWokenByAMessage(wakeUps, channel, "a waiter");

      for (int i = 0; i < WakeUps.MAX_LINGERING + 2; i++) {
        wakeUps.unregister(wakeUps.register("wakeups-test-" + RedisTests.lockId()));
      }
      assertThat(wakeUps.subscriptions()).isLessThanOrEqualTo(WakeUps.MAX_LINGERING);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> wakeUps.subscriptions() == 0 && subscribers(channel) == 0L);
      // Dropped for good: the next waiter subscribes afresh.
      assertWokenByAMessage(wakeUps, channel, "a waiter");
    } finally {
      wakeUps.close();
    }
    assertThat(wakeUps.subscriptions()).isZero();
  }

  /**
   * Registers a waiter on {@code channel}, the only channel with waiters, publishes on it and
   * checks that the message woke the waiter within 2 s; {@code who} names it in failures.
   */
  private static void assertWokenByAMessage(WakeUps wakeUps, String channel, String who)
      throws Exception {
    WakeUps.Waiter waiter = wakeUps.register(channel);
    try {
      assertThat(wakeUps.subscribedChannels()).as("%s: channels with waiters", who).isEqualTo(1);
      client.getTopic(channel, StringCodec.INSTANCE).publish("released");
      long start = System.nanoTime();
      waiter.await(TimeUnit.SECONDS.toNanos(5));
      assertThat(System.nanoTime() - start)
          .as("%s woken by the message", who)
          .isLessThan(TimeUnit.SECONDS.toNanos(2));
    } finally {
      wakeUps.unregister(waiter);
    }
  }

  /** How many clients the server counts on {@code channel} ({@code PUBSUB NUMSUB}). */
  private static long subscribers(String channel) throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    Object reply =
        RespClient.call(
            server.getHost(), server.getPort(), Duration.ofSeconds(5), "PUBSUB", "NUMSUB", channel);
    return ((Number) ((List<?>) reply).get(1)).longValue();
  }

  @Test
  void waitersQueuedBehindAFailedSubscriptionPollInsteadOfEachWaitingOutItsTimeout()
      throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      Config config = new Config().setThreads(2).setNettyThreads(4);
      config
          .useSingleServer()
          .setAddress("redis://" + proxy.host() + ":" + proxy.port())
          .setTimeout(3_000)
          .setSubscriptionTimeout(3_000)
          .setRetryAttempts(0);
      RedissonClient frozen = Redisson.create(config);
      WakeUps wakeUps = new WakeUps(frozen);
      ExecutorService waiters = Executors.newFixedThreadPool(4);
      try {
        String channel = "wakeups-test-" + RedisTests.lockId();
        // SUBSCRIBE never reaches Redis: the first waiter's attempt fails after the timeout.
        proxy.freeze(FaultProxy.Direction.TO_SERVER);
        List<Future<Throwable>> failures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          failures.add(
              waiters.submit(
                  () -> {
                    try {
                      wakeUps.register(channel);
                      return new AssertionError("subscribed through a frozen connection");
                    } catch (RuntimeException e) {
                      return e;
                    }
                  }));
        }
        // One waiter subscribes; the three others queue behind it before it times out.
        // Well inside the 3 s the first attempt takes to fail.
        await()
            .pollInterval(Duration.ofMillis(10))
            .atMost(Duration.ofMillis(1500))
            .until(() -> wakeUps.queuedFor(channel) == 3);
        for (Future<Throwable> failure : failures) {
          assertThat(failure.get(10, TimeUnit.SECONDS)).isNotInstanceOf(AssertionError.class);
        }
        assertThat(wakeUps.subscriptionAttempts())
            .as("subscriptions tried for four waiters queued on one failed attempt")
            .isEqualTo(1);
        assertThat(wakeUps.subscriptions()).isZero();
      } finally {
        waiters.shutdownNow();
        proxy.thaw();
        wakeUps.close();
        frozen.shutdown();
      }
    }
  }

  @Test
  void aPollingWaiterWakesWithinThePollIntervalWithoutAnyMessage() throws Exception {
    WakeUps.Waiter waiter = WakeUps.Waiter.polling();
    long start = System.nanoTime();
    waiter.await(TimeUnit.SECONDS.toNanos(10));
    long waited = System.nanoTime() - start;
    assertThat(waited).isLessThan(WakeUps.POLL_NANOS + TimeUnit.SECONDS.toNanos(1));
  }
}
