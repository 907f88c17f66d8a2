package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Redis killed and restarted without persistence while locks are held and awaited. */
class RedisRestartTest {
  private static final Duration RECOVERY = Duration.ofSeconds(30);
  private RedisServerProcess redis;
  private RedisLockProvider provider;

  @BeforeEach
  void start() {
    redis = TestRedis.startDedicated();
    provider = RedisLockProvider.create(redis.url() + "?" + RedisTests.FAST);
  }

  @AfterEach
  void stop() {
    provider.close();
    redis.close();
  }

  @Test
  void callsFailClearlyWhileRedisIsDownThenRecoverAndTheOldLeaseIsLost() {
    String id = lockId();
    LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();

    redis.stop();
    assertThatThrownBy(() -> provider.renew(lease, Duration.ofSeconds(30)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("failed to renew lock '" + id + "'")
        .hasMessageContaining(redis.url());
    assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("failed to acquire lock '" + id + "'");

    redis.restart();
    // Without persistence the lease is gone: once Redisson has reconnected, renewal says so.
    Optional<LeaseGrant> renewed =
        await()
            .atMost(RECOVERY)
            .ignoreException(LockProviderException.class)
            .until(() -> provider.renew(lease, Duration.ofSeconds(30)), Objects::nonNull);
    assertThat(renewed).as("renewal after the restart").isEmpty();
    assertThat(provider.release(lease)).isFalse();

    LeaseGrant next = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    assertThat(next.fencingToken())
        .as("fencing token after the counter was lost")
        .isGreaterThan(lease.fencingToken());
    assertThat(provider.release(next)).isTrue();
  }

  @Test
  void aWaiterFromBeforeTheRestartGetsTheFreedLockAfterIt() throws Exception {
    String id = lockId();
    provider.tryAcquire(request(id, Duration.ofMinutes(10))).orElseThrow();
    CompletableFuture<Optional<LeaseGrant>> waiter =
        RedisTests.acquireAsync(provider, id, Duration.ofMinutes(2));
    await().atMost(Duration.ofSeconds(10)).until(() -> provider.subscribedChannels() == 1);

    redis.restart();
    // The holder's ten-minute lease vanished with the restart; the resubscription wakes the waiter.
    LeaseGrant granted = waiter.get(RECOVERY.toSeconds(), TimeUnit.SECONDS).orElseThrow();
    assertThat(provider.status(id).currentHolder().orElseThrow().fencingToken())
        .isEqualTo(granted.fencingToken());
  }

  @Test
  void aHeldLockIsReportedLostWhenRedisRestarts() {
    CopyOnWriteArrayList<String> lost = new CopyOnWriteArrayList<>();
    LockListener listener =
        LockListener.onLost((event, reason) -> lost.add(event.lockId() + ": " + reason));
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).listener(listener).build()) {
      String name = lockId();
      Lease lease = locksmith.acquire(LockOptions.named(name).withTtl(Duration.ofSeconds(2)));
      assertThat(lease.isValid()).isTrue();

      redis.restart();

      await().atMost(RECOVERY).until(() -> !lease.isValid());
      await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
      assertThat(lost).first().asString().startsWith(name + ": ");
      assertThatThrownBy(lease::checkValid)
          .isInstanceOf(dev.locksmith.core.LockLostException.class);
      lease.close();
    }
  }
}
