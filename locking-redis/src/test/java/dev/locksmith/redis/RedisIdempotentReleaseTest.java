package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson resends a command whose reply timed out or whose connection dropped. A release whose
 * first run already released the lease must then report that release, not a lost lease, must
 * publish only once, and must never touch a later holder's lock. Running the release script twice
 * with one release id ({@link RedisLockProvider#release(LeaseGrant, String)}) sends what such a
 * resend sends.
 */
class RedisIdempotentReleaseTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final URI SERVER = URI.create(TestRedis.sharedUrl());
  private static RedisLockProvider first;
  private static RedisLockProvider second;

  @BeforeAll
  static void connect() {
    String url = RedisTests.sharedUrl();
    first = RedisLockProvider.create(url);
    second = RedisLockProvider.create(url);
  }

  @AfterAll
  static void disconnect() {
    first.close();
    second.close();
  }

  @Test
  void aReleaseResentAfterItsConnectionDroppedReportsTheReleaseThatHappened() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(SERVER.getHost(), SERVER.getPort());
        RedisLockProvider provider = throughProxy(proxy)) {
      String id = lockId();
      LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();

      long scriptsBefore = scriptRuns();
      proxy.loseNextReply();
      assertThat(provider.release(lease)).as("the resent release").isTrue();
      assertThat(scriptRuns() - scriptsBefore)
          .as("the first run's reply was lost: the release script ran again")
          .isEqualTo(2);

      assertThat(provider.status(id).currentHolder()).isEmpty();
      LeaseGrant next = provider.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      assertThat(provider.release(next)).isTrue();
    }
  }

  @Test
  void theEngineDoesNotReportALeaseLostWhoseReleaseWasResent() throws Exception {
    List<String> lost = new CopyOnWriteArrayList<>();
    List<String> released = new CopyOnWriteArrayList<>();
    LockListener listener =
        new LockListener() {
          @Override
          public void lost(LockEvent event, String reason) {
            lost.add(event.lockId() + ": " + reason);
          }

          @Override
          public void released(LockEvent event, Duration held) {
            released.add(event.lockId());
          }
        };
    try (FaultProxy proxy = FaultProxy.start(SERVER.getHost(), SERVER.getPort());
        RedisLockProvider provider = throughProxy(proxy);
        // Probed in build(), so no start-up probe in flight can take the reply the test loses.
        Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(provider)
                .listener(listener)
                .requireProvidersAtStartup(true)
                .build()) {
      String name = lockId();
      // Five minutes: no renewal is sent while the test runs, so the cut reply is the release's.
      Lease lease = locksmith.acquire(LockOptions.named(name).withTtl(LONG));

      long scriptsBefore = scriptRuns();
      proxy.loseNextReply();
      lease.close();

      // The engine may release off the caller's path: wait for the released event.
      await().atMost(Duration.ofSeconds(10)).until(() -> !released.isEmpty());
      assertThat(scriptRuns() - scriptsBefore)
          .as("the first run's reply was lost: the release script ran again")
          .isEqualTo(2);
      assertThat(lost).isEmpty();
      assertThat(released).containsExactly(name);
      assertThat(provider.status(name).currentHolder()).isEmpty();
    }
  }

  @Test
  void aResentReleaseReturnsTrueAgainAndPublishesOnce() throws Exception {
    String id = lockId();
    LockKeys keys = LockKeys.of(first.options().prefix(), id);
    RedissonClient subscriber = Redisson.create(singleServer());
    try {
      List<String> messages = new CopyOnWriteArrayList<>();
      RTopic topic = subscriber.getTopic(keys.channel(), StringCodec.INSTANCE);
      topic.addListener(String.class, (channel, message) -> messages.add(message));
      LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
      String releaseId = releaseWithNewId(lease);
      assertThat(first.release(lease, releaseId)).as("the resend").isTrue();
      assertThat(second.release(lease, releaseId)).as("a resend through another client").isTrue();

      // Messages on one channel arrive in order: once the marker is in, every release is.
      call("PUBLISH", keys.channel(), "marker");
      await().atMost(Duration.ofSeconds(10)).until(() -> messages.contains("marker"));
      assertThat(messages).containsExactly(Long.toString(lease.fencingToken()), "marker");
      assertThat(first.status(id).currentHolder()).isEmpty();
    } finally {
      subscriber.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  @Test
  void aResendAfterTheLockChangedHandsReportsTheReleaseAndLeavesTheNewHolderAlone() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    String releaseId = releaseWithNewId(lease);

    LeaseGrant next = second.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(first.release(lease, releaseId)).as("resend while the next owner holds").isTrue();
    assertHeldBy(id, next);
    assertThat(second.renew(next, LONG)).isPresent();
    assertThat(second.release(next)).isTrue();

    LeaseGrant third = second.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(first.release(lease, releaseId)).as("resend two hand-offs later").isTrue();
    assertHeldBy(id, third);
    assertThat(second.renew(third, LONG)).isPresent();
    assertThat(second.release(third)).isTrue();
  }

  @Test
  void anotherReleaseCallForAReleasedLeaseReportsFalseAndChangesNothing() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(first.release(lease)).isTrue();
    assertThat(first.release(lease)).as("a second call, not a resend").isFalse();

    LeaseGrant next = second.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(first.release(lease)).isFalse();
    assertThat(first.renew(lease, LONG)).isEmpty();
    assertHeldBy(id, next);
    assertThat(second.release(next)).isTrue();
  }

  @Test
  void aStaleOwnerWhoseLeaseExpiredCannotReleaseTheNewHoldersLock() {
    String id = lockId();
    LeaseGrant stale = first.tryAcquire(request(id, Duration.ofMillis(200))).orElseThrow();
    await().atMost(Duration.ofSeconds(5)).until(() -> first.status(id).currentHolder().isEmpty());
    LeaseGrant next = second.tryAcquire(request(id, LONG)).orElseThrow();

    String releaseId = OwnerTokens.newToken();
    assertThat(first.release(stale, releaseId)).isFalse();
    assertThat(first.release(stale, releaseId)).as("its resend").isFalse();
    assertThat(first.renew(stale, LONG)).isEmpty();
    assertHeldBy(id, next);
    assertThat(second.renew(next, LONG)).isPresent();
    assertThat(second.release(next)).isTrue();
    assertThat(first.release(stale, releaseId)).as("after the new holder released").isFalse();
  }

  @Test
  void renewIsIdempotentAndEndsWithTheRelease() {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, Duration.ofSeconds(10))).orElseThrow();

    LeaseGrant renewed = first.renew(lease, LONG).orElseThrow();
    LeaseGrant again = first.renew(lease, LONG).orElseThrow();
    assertThat(again.fencingToken()).isEqualTo(renewed.fencingToken());
    assertThat(first.status(id).currentHolder().orElseThrow().timeLeft())
        .isGreaterThan(Duration.ofMinutes(4));

    assertThat(first.release(again)).isTrue();
    assertThat(first.renew(lease, LONG)).as("renew after release").isEmpty();
    assertThat(first.renew(again, LONG)).isEmpty();
    assertThat(first.status(id).currentHolder()).isEmpty();
  }

  @Test
  void aReleasedLockIsATombstoneThatAcquireTakesWithAGreaterFencingToken() throws Exception {
    String id = lockId();
    LockKeys keys = LockKeys.of(first.options().prefix(), id);
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    String releaseId = releaseWithNewId(lease);

    String record = lease.ownerToken() + "/" + releaseId;
    assertThat(call("HMGET", keys.lock(), "token", "fence", "owner", "released"))
        .isEqualTo(Arrays.asList(null, null, null, record));
    assertThat((Long) call("PTTL", keys.lock())).isBetween(1L, LuaScripts.TOMBSTONE_MILLIS);
    assertThat(first.status(id).currentHolder()).isEmpty();

    LeaseGrant next = second.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    assertHeldBy(id, next);
    assertThat(call("HGET", keys.lock(), "released")).as("records kept").isEqualTo(record);
    assertThat((Long) call("PTTL", keys.lock())).as("the lease's ttl").isBetween(1L, 30_000L);
    assertThat(second.release(next)).isTrue();
    LeaseGrant last = first.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(last.fencingToken()).isGreaterThan(next.fencingToken());
    assertThat(first.release(last)).isTrue();
  }

  @Test
  void theRecordsOfReleasesAreBounded() throws Exception {
    String id = lockId();
    LockKeys keys = LockKeys.of(first.options().prefix(), id);
    LeaseGrant oldest = first.tryAcquire(request(id, LONG)).orElseThrow();
    String oldestId = releaseWithNewId(oldest);
    LeaseGrant kept = first.tryAcquire(request(id, LONG)).orElseThrow();
    String keptId = releaseWithNewId(kept);
    for (int i = 0; i < LuaScripts.RELEASE_RECORDS - 1; i++) {
      assertThat(first.release(first.tryAcquire(request(id, LONG)).orElseThrow())).isTrue();
    }

    String records = (String) call("HGET", keys.lock(), "released");
    assertThat(records.split(" ")).hasSize(LuaScripts.RELEASE_RECORDS);
    assertThat(first.release(kept, keptId)).as("the oldest record kept").isTrue();
    assertThat(first.release(oldest, oldestId)).as("a record pushed out").isFalse();
  }

  @Test
  void anAbandonedAcquireOverATombstoneFreesTheLockAndKeepsTheRecords() throws Exception {
    String id = lockId();
    LeaseGrant lease = first.tryAcquire(request(id, LONG)).orElseThrow();
    String releaseId = releaseWithNewId(lease);
    LockRequest abandoned = request(id, LONG);
    second.tryAcquire(abandoned).orElseThrow();

    assertThat(second.releaseAbandoned(abandoned).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isTrue();
    assertThat(first.status(id).currentHolder()).isEmpty();
    assertThat((Long) call("PTTL", LockKeys.of(first.options().prefix(), id).lock()))
        .isBetween(1L, LuaScripts.TOMBSTONE_MILLIS);
    assertThat(first.release(lease, releaseId)).as("the earlier release's resend").isTrue();
    LeaseGrant next = first.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(first.release(next)).isTrue();
  }

  private static void assertHeldBy(String id, LeaseGrant lease) {
    assertThat(first.status(id).currentHolder().orElseThrow().fencingToken())
        .isEqualTo(lease.fencingToken());
    assertThat(second.tryAcquire(request(id, LONG))).as("still held").isEmpty();
  }

  /** Releases {@code lease} through {@code first} under a new release id, which it returns. */
  private static String releaseWithNewId(LeaseGrant lease) {
    String releaseId = OwnerTokens.newToken();
    assertThat(first.release(lease, releaseId)).as("released under " + releaseId).isTrue();
    return releaseId;
  }

  private static RedisLockProvider throughProxy(FaultProxy proxy) {
    return RedisTests.throughProxy(proxy, "resend" + lockId().substring(5));
  }

  /**
   * How many scripts the server has run so far ({@code EVAL} and {@code EVALSHA} calls, from {@code
   * INFO commandstats}). The tests of this JVM run one at a time, so a difference over one call
   * counts that call's runs: a release whose reply was lost and that was resent runs twice.
   */
  private static long scriptRuns() throws Exception {
    return RedisTests.scriptRuns(call("INFO", "commandstats"));
  }

  private static Config singleServer() {
    Config config = new Config();
    config.useSingleServer().setAddress("redis://" + SERVER.getHost() + ":" + SERVER.getPort());
    return config;
  }

  private static Object call(String... command) throws Exception {
    return RespClient.call(SERVER.getHost(), SERVER.getPort(), Duration.ofSeconds(5), command);
  }
}
