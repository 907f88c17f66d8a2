package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.redis.TestRedis;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** Release channels are subscribed and dropped over and over on one channel without a hitch. */
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
        WakeUps.Waiter waiter = wakeUps.register(channel);
        try {
          client.getTopic(channel, StringCodec.INSTANCE).publish("released");
          long start = System.nanoTime();
          waiter.await(TimeUnit.SECONDS.toNanos(5));
          assertThat(System.nanoTime() - start)
              .as("round %d woken by the message", round)
              .isLessThan(TimeUnit.SECONDS.toNanos(2));
        } finally {
          wakeUps.unregister(waiter);
        }
      }
    } finally {
      wakeUps.close();
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
