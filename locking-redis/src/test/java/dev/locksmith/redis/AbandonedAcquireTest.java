package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An acquire whose reply is lost may still have taken the lock; the provider then releases it by
 * its owner token instead of leaving it held, by a token nobody knows, for the whole TTL.
 */
class AbandonedAcquireTest {
  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void theCompensatingScriptReleasesOnlyTheLockOfItsOwnerToken() throws Exception {
    try (RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl())) {
      String id = lockId();
      LockRequest taken = request(id, LONG);
      provider.tryAcquire(taken).orElseThrow();

      LockRequest other = request(id, LONG);
      assertThat(compensate(provider, other)).as("another owner token changes nothing").isFalse();
      assertThat(provider.status(id).currentHolder()).isPresent();

      assertThat(compensate(provider, taken)).isTrue();
      assertThat(provider.status(id).currentHolder()).isEmpty();
      // A new acquisition: both owner tokens above were given up, and stay refused.
      LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(provider.release(next)).isTrue();
    }
  }

  @Test
  void anAcquireThatArrivesAfterItsCompensationIsRefused() throws Exception {
    // Redisson may resend an acquire whose reply is late on another connection; the first copy
    // or the resend can then run after the compensation, which found nothing to release.
    try (RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl())) {
      String id = lockId();
      LockRequest late = request(id, LONG);
      assertThat(compensate(provider, late)).as("nothing to release yet").isFalse();
      assertThat(provider.tryAcquire(late)).as("the late acquire").isEmpty();
      assertThat(provider.status(id).currentHolder()).isEmpty();

      LockRequest resent = request(id, LONG);
      provider.tryAcquire(resent).orElseThrow();
      assertThat(compensate(provider, resent)).isTrue();
      assertThat(provider.tryAcquire(resent))
          .as("a resend of an acquire that ran, after its compensation released it")
          .isEmpty();

      LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(provider.release(next)).isTrue();
    }
  }

  @Test
  void anAcquireThatArrivesAfterAShorterLeaseRanOutIsStillRefused() throws Exception {
    // A lease granted after the compensation, shorter than the retry window and never released,
    // ends before a late copy of the abandoned acquire arrives; the mark must outlive it.
    try (RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl())) {
      String id = lockId();
      LockRequest late = request(id, LONG);
      assertThat(compensate(provider, late)).isFalse();
      provider.tryAcquire(request(id, Duration.ofMillis(200))).orElseThrow();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> provider.status(id).currentHolder().isEmpty());

      assertThat(provider.tryAcquire(late)).as("the late acquire").isEmpty();
      assertThat(provider.tryAcquireAll(List.of(late))).as("the late acquire, as a set").isEmpty();
      assertThat(provider.status(id).currentHolder()).isEmpty();
    }
  }

  @Test
  void aLateCopyOfAnAcquireIsRefusedOnceItsLeaseWasReleased() throws Exception {
    // Redisson resends an acquire whose reply is late; the first copy, slow on its connection, can
    // arrive after the resend's grant reached the caller and the caller released the lease. It
    // must not take the lock again for a whole TTL on behalf of an owner who is done with it.
    try (RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl())) {
      String id = lockId();
      LockRequest request = request(id, LONG);
      assertThat(provider.release(provider.tryAcquire(request).orElseThrow())).isTrue();

      assertThat(provider.tryAcquire(request)).as("the late copy").isEmpty();
      assertThat(provider.tryAcquireAll(List.of(request))).as("the late copy, as a set").isEmpty();
      assertThat(provider.status(id).currentHolder()).isEmpty();
      LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(provider.release(next)).isTrue();
    }
  }

  @Test
  void aSetThatArrivesAfterItsCompensationIsRefused() throws Exception {
    try (RedisLockProvider provider = RedisLockProvider.create(RedisTests.sharedUrl())) {
      List<LockRequest> late = List.of(request(lockId(), LONG), request(lockId(), LONG));
      assertThat(compensate(provider, late.get(1))).isFalse();
      assertThat(provider.tryAcquireAll(late)).isEmpty();
      assertThat(provider.status(late.get(0).lockId()).currentHolder()).as("all or none").isEmpty();
    }
  }

  @Test
  void anAcquireWhoseReplyIsLostLeavesTheLockFree() throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      String prefix = "lost" + lockId().substring(5);
      try (RedisLockProvider provider = RedisTests.throughProxy(proxy, prefix)) {
        String id = lockId();
        LockKeys keys = LockKeys.of(prefix, id);
        // The commands reach the server and run; no reply reaches the client until the thaw.
        proxy.freeze(FaultProxy.Direction.TO_CLIENT);
        assertThatThrownBy(() -> provider.tryAcquire(request(id, LONG)))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("failed to acquire lock '" + id + "'");
        proxy.thaw(FaultProxy.Direction.TO_CLIENT);

        assertThat(call(server, "GET", keys.fence()))
            .as("the acquire ran on the server; only its reply was lost")
            .isNotNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> isFree(server, keys));
      }
    }
  }

  @Test
  void aSetWhoseReplyIsLostLeavesEveryLockFree() throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      String prefix = "lostset" + lockId().substring(5);
      try (RedisLockProvider provider = RedisTests.throughProxy(proxy, prefix)) {
        // Load the set's script too while replies still arrive.
        List<LeaseGrant> warmUp =
            provider
                .tryAcquireAll(List.of(request(lockId(), LONG), request(lockId(), LONG)))
                .orElseThrow();
        warmUp.forEach(lease -> assertThat(provider.release(lease)).isTrue());

        List<String> ids = List.of(lockId(), lockId(), lockId());
        List<LockRequest> requests = ids.stream().map(id -> request(id, LONG)).toList();
        // The script reaches the server and runs; no reply reaches the client until the thaw.
        proxy.freeze(FaultProxy.Direction.TO_CLIENT);
        assertThatThrownBy(() -> provider.tryAcquireAll(requests))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining(
                "failed to acquire locks '%s', '%s', '%s'"
                    .formatted(ids.get(0), ids.get(1), ids.get(2)));
        proxy.thaw(FaultProxy.Direction.TO_CLIENT);

        for (String id : ids) {
          LockKeys keys = LockKeys.of(prefix, id);
          assertThat(call(server, "GET", keys.fence()))
              .as("the script ran on the server for %s; only its reply was lost", id)
              .isNotNull();
          await().atMost(Duration.ofSeconds(10)).until(() -> isFree(server, keys));
        }
      }
    }
  }

  /**
   * Runs the compensation of an abandoned acquire of {@code request}: whether it freed the lock.
   */
  private static boolean compensate(RedisLockProvider provider, LockRequest request)
      throws Exception {
    return provider.releaseAbandoned(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** No lease in the lock's hash (which may stay, holding only release records and marks). */
  private static boolean isFree(URI server, LockKeys keys) throws Exception {
    return call(server, "HGET", keys.lock(), "token") == null;
  }

  private static Object call(URI server, String... command) throws Exception {
    return RespClient.call(server.getHost(), server.getPort(), Duration.ofSeconds(5), command);
  }
}
