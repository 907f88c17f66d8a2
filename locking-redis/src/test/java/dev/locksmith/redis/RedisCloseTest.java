package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Closing a provider ends its waits at once, with a LockProviderException, and unsubscribes; an
 * acquire already sent finishes first and gives back what it took.
 */
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

  /**
   * Also when the closing thread's interrupt flag is set (an engine's shutdown interrupted while it
   * waited for locked work, a cancelled task closing its provider in {@code finally}): before, each
   * of the close's waits threw at once and the client was shut down under the acquire.
   */
  @ParameterizedTest(name = "closing thread interrupted: {0}")
  @ValueSource(booleans = {false, true})
  void anAcquireAnsweredAfterCloseBeganGivesItsLockBackBeforeTheClientIsShutDown(
      boolean interrupted) throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      String prefix = "closing" + lockId().substring(5);
      RedisLockProvider provider =
          RedisLockProvider.create(
              "redis://"
                  + proxy.host()
                  + ":"
                  + proxy.port()
                  + "?prefix="
                  + prefix
                  + "&timeout=10s&retry-attempts=0");
      // Connected, the eviction policy checked and the scripts loaded.
      assertThat(provider.release(provider.tryAcquire(request(lockId(), LONG)).orElseThrow()))
          .isTrue();
      String id = lockId();
      String lock = LockKeys.of(prefix, id).lock();

      // The acquire runs on the server; its reply is held back.
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      FutureTask<Optional<LeaseGrant>> acquire =
          new FutureTask<>(() -> provider.tryAcquire(request(id, LONG)));
      new Thread(acquire, "acquirer").start();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Long.valueOf(1).equals(call(server, "EXISTS", lock)));

      AtomicBoolean stillInterrupted = new AtomicBoolean();
      FutureTask<Void> closed =
          new FutureTask<>(
              () -> {
                if (interrupted) {
                  Thread.currentThread().interrupt();
                }
                provider.close();
                stillInterrupted.set(Thread.currentThread().isInterrupted());
              },
              null);
      new Thread(closed, "closer").start();
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !closed.isDone());
      proxy.thaw(FaultProxy.Direction.TO_CLIENT);
      closed.get(20, TimeUnit.SECONDS);

      assertThatThrownBy(() -> acquire.get(10, TimeUnit.SECONDS))
          .as("a grant nobody will renew or release")
          .cause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("was closed while acquiring lock '" + id + "'");
      assertThat(call(server, "HGET", lock, "token"))
          .as("given back before close() returned")
          .isNull();
      assertThat(stillInterrupted.get())
          .as("the interrupt kept for the caller")
          .isEqualTo(interrupted);
    }
  }

  private static Object call(URI server, String... command) throws Exception {
    return RespClient.call(server.getHost(), server.getPort(), Duration.ofSeconds(5), command);
  }
}
