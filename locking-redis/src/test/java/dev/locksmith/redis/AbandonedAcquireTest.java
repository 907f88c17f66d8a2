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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
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

  @Test
  void aLateCopyOfAnAcquireAnsweredBusyAfterAResendFindsNothingToTake() throws Exception {
    // Redisson resends an acquire whose reply is later than its timeout. When the resend is
    // answered "busy", a copy still on its way can take the lock after the holder's release, for
    // its whole TTL, on behalf of a caller long told the lock was busy.
    busyAfterAResend((provider, requests) -> provider.tryAcquire(requests.get(0)).map(List::of), 1);
  }

  @Test
  void aLateCopyOfASetAnsweredBusyAfterAResendFindsNothingToTake() throws Exception {
    busyAfterAResend(RedisLockProvider::tryAcquireAll, 2);
  }

  @Test
  void aWaitOfQuickRefusalsThatTimesOutMarksNothing() throws Exception {
    // Longer than the client's 800 ms reply timeout, but no attempt's reply was late: no copy of
    // any attempt can still be on its way, and the marks stay free for those that can.
    URI server = URI.create(TestRedis.sharedUrl());
    String prefix = "quick" + lockId().substring(5);
    try (RedisLockProvider provider =
        RedisLockProvider.create(TestRedis.sharedUrl() + "?prefix=" + prefix)) {
      String id = lockId();
      LeaseGrant holder = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(provider.acquire(request(id, LONG), Duration.ofMillis(1200))).isEmpty();
      assertThat(call(server, "GET", LockKeys.of(prefix, id).abandoned())).isNull();
      assertThat(provider.release(holder)).isTrue();
    }
  }

  /**
   * Runs {@code acquire} of {@code locks} fresh requests (the first lock held elsewhere) through a
   * proxy that holds the first reply past the client's timeout, so that Redisson sends the acquire
   * again and the resend is answered busy; then checks that a copy arriving after the holder's
   * release takes nothing.
   */
  private static void busyAfterAResend(
      BiFunction<RedisLockProvider, List<LockRequest>, Optional<List<LeaseGrant>>> acquire,
      int locks)
      throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      String prefix = "busy" + lockId().substring(5);
      try (RedisLockProvider provider = RedisTests.throughProxy(proxy, prefix);
          RedisLockProvider direct =
              RedisLockProvider.create(TestRedis.sharedUrl() + "?prefix=" + prefix)) {
        List<String> ids = Stream.generate(RedisTests::lockId).limit(locks).toList();
        LeaseGrant holder = direct.tryAcquire(request(ids.get(0), LONG)).orElseThrow();
        List<LockKeys> keys = ids.stream().map(id -> LockKeys.of(prefix, id)).toList();
        assertThat(acquire.apply(provider, requests(ids))).as("busy, answered at once").isEmpty();
        for (LockKeys one : keys) {
          assertThat(call(server, "GET", one.abandoned()))
              .as("a refusal answered before any resend marks nothing")
              .isNull();
        }

        // The first copy is refused at once; its reply is held past the timeout, so Redisson
        // sends the acquire again, and the resend's reply comes through.
        proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMinutes(1));
        long before = proxy.forwarded(FaultProxy.Direction.TO_SERVER);
        List<LockRequest> refused = requests(ids);
        long start = System.nanoTime();
        CompletableFuture<Optional<List<LeaseGrant>>> answer =
            CompletableFuture.supplyAsync(() -> acquire.apply(provider, refused));
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> proxy.forwarded(FaultProxy.Direction.TO_SERVER) > before);
        long copy = proxy.forwarded(FaultProxy.Direction.TO_SERVER) - before;
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> proxy.forwarded(FaultProxy.Direction.TO_SERVER) >= before + 2 * copy);
        proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);
        assertThat(answer.get(10, TimeUnit.SECONDS)).as("busy").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("answered after a resend")
            .isGreaterThanOrEqualTo(Duration.ofSeconds(1));

        for (int i = 0; i < locks; i++) {
          LockKeys one = keys.get(i);
          String token = refused.get(i).ownerToken();
          await()
              .atMost(Duration.ofSeconds(5))
              .until(() -> String.valueOf(call(server, "GET", one.abandoned())).contains(token));
        }
        assertThat(direct.release(holder)).isTrue();
        // A copy of the refused acquire arriving now: it must not take a lock.
        assertThat(acquire.apply(direct, refused)).as("the late copy").isEmpty();
        for (String id : ids) {
          assertThat(direct.status(id).currentHolder()).isEmpty();
        }
        List<LeaseGrant> next = acquire.apply(direct, requests(ids)).orElseThrow();
        next.forEach(lease -> assertThat(direct.release(lease)).isTrue());
      }
    }
  }

  private static List<LockRequest> requests(List<String> ids) {
    return ids.stream().map(id -> request(id, LONG)).toList();
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
