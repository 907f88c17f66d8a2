package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultProxy.Direction;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RedisLockProvider#renewAll}: one script for the batch, each lease renewed as {@link
 * RedisLockProvider#renew} renews one, one answer per lease in order. A server of its own, so that
 * its {@code INFO commandstats} counts this class's scripts only.
 */
class RedisRenewAllTest {
  private static final Duration SHORT = Duration.ofSeconds(20);
  private static final Duration LONGER = Duration.ofMinutes(5);

  @RegisterExtension
  static final DedicatedRedis dedicated = new DedicatedRedis("prefix=renewall", "prefix=renewall");

  private final RedisServerProcess redis = dedicated.server();
  private final RedisLockProvider provider = dedicated.first();
  private final RedisLockProvider other = dedicated.second();

  @Test
  void aHundredLeasesAreOneScriptAndLeasesGoneMeanwhileAnswerEmpty() throws Exception {
    List<LeaseGrant> leases = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      leases.add(provider.tryAcquire(request(lockId(), SHORT)).orElseThrow());
    }
    LeaseGrant expiring =
        provider.tryAcquire(request(lockId(), Duration.ofMillis(100))).orElseThrow();
    leases.set(40, expiring);
    assertThat(redis.call("DEL", LockKeys.of("renewall", leases.get(7).lockId()).lock()))
        .isEqualTo(1L);
    LeaseGrant released = leases.get(63);
    assertThat(other.release(released)).isTrue();
    LeaseGrant taken = other.tryAcquire(request(released.lockId(), SHORT)).orElseThrow();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> other.status(expiring.lockId()).currentHolder().isEmpty());

    List<RenewalRequest> requests =
        leases.stream().map(lease -> new RenewalRequest(lease, LONGER)).toList();
    long before = dedicated.scriptRuns();
    long sent = System.nanoTime();
    List<Optional<LeaseGrant>> renewed = provider.renewAll(requests);
    assertThat(dedicated.scriptRuns() - before).as("scripts for 100 renewals").isEqualTo(1);

    assertThat(renewed).hasSize(100);
    for (int i = 0; i < 100; i++) {
      LeaseGrant lease = leases.get(i);
      if (i == 7 || i == 40 || i == 63) {
        assertThat(renewed.get(i)).as("lease %d, gone meanwhile", i).isEmpty();
        continue;
      }
      LeaseGrant grant = renewed.get(i).orElseThrow();
      assertThat(grant.lockId()).isEqualTo(lease.lockId());
      assertThat(grant.fencingToken()).isEqualTo(lease.fencingToken());
      assertThat(grant.ttl()).isEqualTo(LONGER);
      assertThat(grant.deadlineNanos() - sent).isGreaterThan(Duration.ofMinutes(4).toNanos());
      assertThat(other.status(lease.lockId()).currentHolder().orElseThrow().timeLeft())
          .as("lease %d on the server", i)
          .isGreaterThan(Duration.ofMinutes(4));
    }
    assertThat(other.status(released.lockId()).currentHolder().orElseThrow().fencingToken())
        .as("the new holder's lease is untouched")
        .isEqualTo(taken.fencingToken());
    assertThat(other.status(released.lockId()).currentHolder().orElseThrow().timeLeft())
        .isLessThan(Duration.ofSeconds(21));
    assertThat(other.status(leases.get(7).lockId()).currentHolder()).isEmpty();
    for (int i = 0; i < 100; i++) {
      if (renewed.get(i).isPresent()) {
        assertThat(provider.release(renewed.get(i).get())).isTrue();
      }
    }
    assertThat(other.release(taken)).isTrue();
  }

  @Test
  void aWrongFencingTokenIsNotRenewedAndAShorterTtlWakesWaiters() throws Exception {
    LeaseGrant lease = provider.tryAcquire(request(lockId(), LONGER)).orElseThrow();
    LeaseGrant stale =
        new LeaseGrant(
            lease.lockId(),
            lease.ownerToken(),
            lease.fencingToken() - 1,
            lease.ttl(),
            lease.deadlineNanos());
    var waiter = RedisTests.acquireAsync(other, lease.lockId(), Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> other.subscribedChannels() == 1);

    List<Optional<LeaseGrant>> renewed =
        provider.renewAll(
            List.of(
                new RenewalRequest(stale, LONGER),
                new RenewalRequest(lease, Duration.ofMillis(300))));
    assertThat(renewed.get(0)).as("stale fencing token").isEmpty();
    assertThat(renewed.get(1)).isPresent();
    Optional<LeaseGrant> next = waiter.get(10, TimeUnit.SECONDS);
    assertThat(next.orElseThrow().fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(other.release(next.get())).isTrue();
  }

  @Test
  void anEmptyBatchSendsNothingAndAnOversizedOneIsRefused() throws Exception {
    long before = dedicated.scriptRuns();
    assertThat(provider.renewAll(List.of())).isEmpty();
    LeaseGrant lease = new LeaseGrant(lockId(), "t", 1, SHORT, System.nanoTime());
    List<RenewalRequest> tooMany = new ArrayList<>();
    for (int i = 0; i <= LockProvider.MAX_RENEWALS_PER_CALL; i++) {
      tooMany.add(new RenewalRequest(lease, SHORT));
    }
    assertThatThrownBy(() -> provider.renewAll(tooMany))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("513")
        .hasMessageContaining("512");
    assertThat(dedicated.scriptRuns()).isEqualTo(before);
  }

  @Test
  void aBatchWithoutAnswerThrowsNamingTheLeases() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        RedisLockProvider proxied =
            RedisLockProvider.create(RedisTests.proxiedUrl(proxy, "renewall"))) {
      List<RenewalRequest> requests = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        LeaseGrant lease = proxied.tryAcquire(request(lockId(), SHORT)).orElseThrow();
        requests.add(new RenewalRequest(lease, LONGER));
      }
      proxy.freeze(Direction.TO_CLIENT);
      assertThatThrownBy(() -> proxied.renewAll(requests))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining(
              "failed to renew leases of locks '" + requests.get(0).lease().lockId())
          .hasMessageContaining("and 2 more");
      proxy.thaw(Direction.TO_CLIENT);
    }
  }

  @Test
  void aRenewalAfterReleaseAsyncIsAppliedAfterTheRelease() {
    LeaseGrant lease = provider.tryAcquire(request(lockId(), SHORT)).orElseThrow();
    var release = provider.releaseAsync(lease);
    assertThat(provider.renewAll(List.of(new RenewalRequest(lease, LONGER))).get(0))
        .as("renewed after its release")
        .isEmpty();
    assertThat(release.toCompletableFuture().join()).isTrue();
    assertThat(other.status(lease.lockId()).currentHolder()).isEmpty();
  }
}
