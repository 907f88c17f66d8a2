package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RedisLockProvider#tryAcquireAll} on one server, where every set is one script: all or
 * none, leases like single ones, tokens from the same counters, waiters, and one round trip. A
 * server of its own, so that its {@code INFO commandstats} counts this class's scripts only.
 */
class RedisSeveralLocksTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @RegisterExtension
  static final DedicatedRedis dedicated = new DedicatedRedis("prefix=several", "prefix=several");

  private final RedisServerProcess redis = dedicated.server();
  private final RedisLockProvider first = dedicated.first();
  private final RedisLockProvider second = dedicated.second();

  @Test
  void theSetIsGrantedAndEachLeaseIsHeldRenewedAndReleasedLikeASingleOne() {
    List<LockRequest> requests = requests(3, LONG);
    List<LeaseGrant> grants = first.tryAcquireAll(requests).orElseThrow();

    assertThat(grants).hasSize(3);
    for (int i = 0; i < 3; i++) {
      LockRequest request = requests.get(i);
      LeaseGrant grant = grants.get(i);
      assertThat(grant.lockId()).isEqualTo(request.lockId());
      assertThat(grant.ownerToken()).isEqualTo(request.ownerToken());
      assertThat(grant.ttl()).isEqualTo(LONG);
      var holder = second.status(request.lockId()).currentHolder().orElseThrow();
      assertThat(holder.fencingToken()).isEqualTo(grant.fencingToken());
      assertThat(holder.owner()).isEqualTo(request.owner());
      assertThat(holder.timeLeft()).isGreaterThan(Duration.ofSeconds(20));
      assertThat(second.tryAcquire(request(request.lockId(), LONG))).as("held").isEmpty();
    }

    LeaseGrant renewed = second.renew(grants.get(1), Duration.ofMinutes(5)).orElseThrow();
    assertThat(renewed.fencingToken()).isEqualTo(grants.get(1).fencingToken());
    assertThat(first.status(renewed.lockId()).currentHolder().orElseThrow().timeLeft())
        .isGreaterThan(Duration.ofMinutes(4));
    assertThat(second.release(grants.get(0))).isTrue();
    assertThat(first.release(renewed)).isTrue();
    assertThat(first.release(grants.get(2))).isTrue();
    for (LockRequest request : requests) {
      assertThat(first.status(request.lockId()).currentHolder()).isEmpty();
    }
    assertThat(first.release(grants.get(0))).as("released twice").isFalse();
  }

  @Test
  void oneBusyLockLeavesTheWholeSetUntaken() throws Exception {
    List<LockRequest> requests = requests(4, LONG);
    LeaseGrant busy = second.tryAcquire(request(requests.get(2).lockId(), LONG)).orElseThrow();

    assertThat(first.tryAcquireAll(requests)).isEmpty();
    for (int i = 0; i < 4; i++) {
      String id = requests.get(i).lockId();
      if (i == 2) {
        assertThat(first.status(id).currentHolder().orElseThrow().fencingToken())
            .isEqualTo(busy.fencingToken());
      } else {
        assertThat(first.status(id).currentHolder()).as(id).isEmpty();
        assertThat(redis.call("EXISTS", LockKeys.of("several", id).fence()))
            .as("no counter bumped for %s", id)
            .isEqualTo(0L);
      }
    }

    assertThat(second.release(busy)).isTrue();
    List<LeaseGrant> grants = first.tryAcquireAll(requests).orElseThrow();
    assertThat(grants.get(2).fencingToken()).isGreaterThan(busy.fencingToken());
    grants.forEach(grant -> assertThat(first.release(grant)).isTrue());
  }

  @Test
  void tokensComeFromEachLocksOwnCounterAndKeepIncreasing() {
    List<LockRequest> requests = requests(2, LONG);
    LeaseGrant single = first.tryAcquire(request(requests.get(0).lockId(), LONG)).orElseThrow();
    assertThat(first.release(single)).isTrue();
    long[] last = {single.fencingToken(), 0};
    for (int round = 0; round < 5; round++) {
      List<LockRequest> again =
          List.of(request(requests.get(0).lockId(), LONG), request(requests.get(1).lockId(), LONG));
      List<LeaseGrant> grants = first.tryAcquireAll(again).orElseThrow();
      for (int i = 0; i < 2; i++) {
        assertThat(grants.get(i).fencingToken()).isGreaterThan(last[i]);
        last[i] = grants.get(i).fencingToken();
        assertThat(first.release(grants.get(i))).isTrue();
      }
    }
    LeaseGrant after = second.tryAcquire(request(requests.get(1).lockId(), LONG)).orElseThrow();
    assertThat(after.fencingToken()).as("single grant after batches").isGreaterThan(last[1]);
    assertThat(second.release(after)).isTrue();
  }

  @Test
  void theSameRequestsSentAgainGetTheirOwnGrantsBack() {
    // What a resend after a lost reply finds: every lock held by its own request's owner token.
    List<LockRequest> requests = requests(3, LONG);
    List<LeaseGrant> grants = first.tryAcquireAll(requests).orElseThrow();

    assertThat(first.tryAcquireAll(requests).orElseThrow())
        .extracting(LeaseGrant::fencingToken)
        .containsExactlyElementsOf(grants.stream().map(LeaseGrant::fencingToken).toList());
    grants.forEach(grant -> assertThat(first.release(grant)).isTrue());
  }

  @Test
  void aWaiterOnOneLockOfTheSetIsWokenByItsReleaseAsAfterASingleGrant() throws Exception {
    List<LockRequest> requests = requests(3, LONG);
    List<LeaseGrant> grants = first.tryAcquireAll(requests).orElseThrow();
    String waitedFor = requests.get(1).lockId();
    CompletableFuture<Optional<LeaseGrant>> waiter =
        RedisTests.acquireAsync(second, waitedFor, Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> second.subscribedChannels() == 1);

    long releasedAt = System.nanoTime();
    assertThat(first.release(grants.get(1))).isTrue();
    LeaseGrant next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
    assertThat(Duration.ofNanos(System.nanoTime() - releasedAt))
        .as("woken by the release, not the 30 s TTL")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(next.fencingToken()).isGreaterThan(grants.get(1).fencingToken());
    assertThat(second.release(next)).isTrue();
    assertThat(first.release(grants.get(0))).isTrue();
    assertThat(first.release(grants.get(2))).isTrue();
  }

  @Test
  void aSetWithALockAWaiterWaitsForIsRefusedAndTheWaiterGetsItWhenFreed() throws Exception {
    List<LockRequest> requests = requests(2, LONG);
    String contested = requests.get(1).lockId();
    LeaseGrant holder = second.tryAcquire(request(contested, LONG)).orElseThrow();
    CompletableFuture<Optional<LeaseGrant>> waiter =
        RedisTests.acquireAsync(second, contested, Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> second.subscribedChannels() == 1);

    assertThat(first.tryAcquireAll(requests)).isEmpty();
    assertThat(first.status(requests.get(0).lockId()).currentHolder()).isEmpty();
    assertThat(second.release(holder)).isTrue();
    LeaseGrant waited = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
    assertThat(waited.fencingToken()).isGreaterThan(holder.fencingToken());
    assertThat(first.tryAcquireAll(requests)).as("the waiter holds it now").isEmpty();
    assertThat(second.release(waited)).isTrue();
  }

  @Test
  void aLeaseOfTheSetEndsByItsOwnTtl() {
    String shortId = lockId();
    String longId = lockId();
    List<LeaseGrant> grants =
        first
            .tryAcquireAll(List.of(request(shortId, Duration.ofMillis(200)), request(longId, LONG)))
            .orElseThrow();

    LeaseGrant next =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> second.tryAcquire(request(shortId, LONG)), Optional::isPresent)
            .orElseThrow();
    assertThat(first.status(longId).currentHolder()).isPresent();
    assertThat(first.renew(grants.get(0), LONG)).as("expired").isEmpty();
    assertThat(second.release(next)).isTrue();
    assertThat(first.release(grants.get(1))).isTrue();
  }

  @Test
  void theWholeSetIsOneScriptRun() throws Exception {
    // Warm up: the first grant reads maxmemory-policy once.
    LeaseGrant warmUp = first.tryAcquire(request(lockId(), LONG)).orElseThrow();
    assertThat(first.release(warmUp)).isTrue();

    long before = dedicated.scriptRuns();
    List<LeaseGrant> grants =
        first.tryAcquireAll(requests(LockProvider.MAX_KEYS_PER_CALL, LONG)).orElseThrow();
    long granted = dedicated.scriptRuns();
    List<LockRequest> refused = requests(LockProvider.MAX_KEYS_PER_CALL - 1, LONG);
    refused.add(request(grants.get(5).lockId(), LONG));
    assertThat(first.tryAcquireAll(refused)).isEmpty();
    long after = dedicated.scriptRuns();

    assertThat(granted - before).as("scripts run for 64 locks granted").isEqualTo(1);
    assertThat(after - granted).as("scripts run for 64 locks refused").isEqualTo(1);
    assertThat(grants).hasSize(LockProvider.MAX_KEYS_PER_CALL);
    grants.forEach(grant -> assertThat(first.release(grant)).isTrue());
  }

  @Test
  void aBatchOverTheBoundOrWithADuplicateIsRefusedBeforeAnythingIsSent() throws Exception {
    long before = dedicated.scriptRuns();
    List<LockRequest> tooMany = requests(LockProvider.MAX_KEYS_PER_CALL + 1, LONG);
    assertThatThrownBy(() -> first.tryAcquireAll(tooMany))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65")
        .hasMessageContaining("64");
    String id = lockId();
    assertThatThrownBy(() -> first.tryAcquireAll(List.of(request(id, LONG), request(id, LONG))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(id);
    assertThatThrownBy(
            () ->
                first.tryAcquireAll(
                    List.of(request(lockId(), LONG), request(lockId(), Duration.ofDays(366)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("365d");
    assertThat(dedicated.scriptRuns()).isEqualTo(before);
  }

  @Test
  void theEnginesCallOverSeveralKeysIsOneScriptRun() throws Exception {
    // Loads the several-keys script on the server first (a first run is EVALSHA, NOSCRIPT, SCRIPT
    // LOAD and EVALSHA again), so that the count below is of a call's own runs.
    for (LeaseGrant warmUp :
        first
            .tryAcquireAll(List.of(request(lockId(), LONG), request(lockId(), LONG)))
            .orElseThrow()) {
      assertThat(first.release(warmUp)).isTrue();
    }
    String from = lockId();
    String to = lockId();
    // Required at start-up: build() then waits for the engine's probe of the provider (a status
    // script), which would otherwise run in the background while the scripts are counted.
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(first).requireProvidersAtStartup(true).build()) {
      LockOptions transfer =
          LockOptions.named("transfer").withKeys(from, to).withOnBusy(OnBusy.FAIL).withTtl(LONG);

      long before = dedicated.scriptRuns();
      try (Lease lease = locksmith.acquire(transfer)) {
        assertThat(dedicated.scriptRuns() - before)
            .as("scripts for a call over two keys")
            .isEqualTo(1);
        for (String key : List.of(from, to)) {
          assertThat(second.status("transfer:" + key).currentHolder().orElseThrow().fencingToken())
              .isEqualTo(lease.lease(key).fencingToken());
        }
      }
      // The engine may release off the caller's path, so another provider sees it a little later.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  second.status("transfer:" + from).currentHolder().isEmpty()
                      && second.status("transfer:" + to).currentHolder().isEmpty());

      LeaseGrant busy = second.tryAcquire(request("transfer:" + to, LONG)).orElseThrow();
      assertThatThrownBy(() -> locksmith.acquire(transfer)).isInstanceOf(LockBusyException.class);
      assertThat(second.status("transfer:" + from).currentHolder()).as("none taken").isEmpty();
      assertThat(second.release(busy)).isTrue();
    }
    assertThat(first.status(from).currentHolder())
        .as("the engine leaves its provider open")
        .isEmpty();
  }

  private static List<LockRequest> requests(int count, Duration ttl) {
    List<LockRequest> requests = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      requests.add(request(lockId(), ttl));
    }
    return requests;
  }
}
