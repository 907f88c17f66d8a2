package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real Redis in cluster mode: key slots, and the provider through a Redisson YAML file. */
class RedisClusterTest {
  private static RedisServerProcess node;

  @BeforeAll
  static void startSingleNodeCluster() throws Exception {
    node =
        TestRedis.startDedicated("--cluster-enabled", "yes", "--cluster-announce-ip", "127.0.0.1");
    List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
    for (int slot = 0; slot < 16_384; slot++) {
      addSlots.add(Integer.toString(slot));
    }
    node.call(addSlots.toArray(String[]::new));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> String.valueOf(node.call("CLUSTER", "INFO")).contains("cluster_state:ok"));
  }

  @AfterAll
  static void stopCluster() {
    node.close();
  }

  @Test
  void allKeysOfOneLockHashToOneSlot() throws Exception {
    List<String> ids =
        List.of("a", "orders:42", "user:{7}", "}", "{", "{}", "%7B", "x}y{z", "ключ", "a b");
    List<Long> slots = new ArrayList<>();
    for (String id : ids) {
      LockKeys keys = LockKeys.of("locksmith", id);
      long slot = (Long) node.call("CLUSTER", "KEYSLOT", keys.lock());
      assertThat(node.call("CLUSTER", "KEYSLOT", keys.fence())).as(id).isEqualTo(slot);
      assertThat(node.call("CLUSTER", "KEYSLOT", keys.channel())).as(id).isEqualTo(slot);
      slots.add(slot);
    }
    assertThat(slots.stream().distinct().count()).as("ids spread over slots").isGreaterThan(1);
    assertThat(LockKeys.of("p", "{").lock()).isNotEqualTo(LockKeys.of("p", "%7B").lock());
  }

  @Test
  void theProviderWorksOnAClusterConfiguredByYaml(@TempDir Path dir) throws Exception {
    Path yaml = clusterYaml(dir);
    try (RedisLockProvider first = RedisLockProvider.create("redis://" + yaml + "?prefix=c");
        RedisLockProvider second = RedisLockProvider.create("redis:///?config=" + yaml)) {
      String id = lockId();
      LeaseGrant held = first.tryAcquire(request(id, Duration.ofMinutes(5))).orElseThrow();
      assertThat(node.call("EXISTS", LockKeys.of("c", id).lock())).isEqualTo(1L);
      CompletableFuture<Optional<LeaseGrant>> waiter =
          RedisTests.acquireAsync(first, id, Duration.ofMinutes(1));
      await().atMost(Duration.ofSeconds(10)).until(() -> first.subscribedChannels() == 1);
      assertThat(first.renew(held, Duration.ofMinutes(5))).isPresent();
      assertThat(first.release(held)).isTrue();
      LeaseGrant next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(second.status(id).currentHolder()).as("other prefix, other lock").isEmpty();
      assertThat(first.release(next)).isTrue();
    }
  }

  /** A Redisson YAML file for the node as a cluster. */
  /** A provider on the cluster through the YAML file {@link #clusterYaml} writes, with a prefix. */
  private static RedisLockProvider onCluster(Path dir, String prefix) throws Exception {
    return RedisLockProvider.create("redis://" + clusterYaml(dir) + "?prefix=" + prefix);
  }

  private static Path clusterYaml(Path dir) throws Exception {
    Path yaml = dir.resolve("redisson.yaml");
    Files.writeString(
        yaml,
        """
        threads: 2
        nettyThreads: 4
        clusterServersConfig:
          timeout: 2000
          connectTimeout: 2000
          masterConnectionMinimumIdleSize: 1
          slaveConnectionMinimumIdleSize: 1
          subscriptionConnectionMinimumIdleSize: 1
          nodeAddresses:
          - "redis://127.0.0.1:%d"
        """
            .formatted(node.port()));
    return yaml;
  }

  @Test
  void slotsAreComputedAsTheServerComputesThem() throws Exception {
    List<String> keys =
        new ArrayList<>(
            List.of(
                "",
                "a",
                "{",
                "}",
                "{}",
                "{}x",
                "a{b}c",
                "a{{b}}",
                "x}y{z}",
                "{user1000}.following",
                "foo{}{bar}",
                "foo{{bar}}zap",
                "ключ{ключ}",
                "123456789"));
    for (String id : List.of("account:{eu}:42", "orders:42", "a{b{c}d", "{}", "x}y{z%")) {
      LockKeys lock = LockKeys.of("locksmith", id);
      keys.addAll(List.of(lock.lock(), lock.fence(), lock.channel()));
    }
    for (int i = 0; i < 200; i++) {
      keys.add(lockId());
    }
    for (String key : keys) {
      assertThat((long) KeySlots.slot(key)).as(key).isEqualTo(node.call("CLUSTER", "KEYSLOT", key));
    }
  }

  @Test
  void idsWithOneHashTagShareASlotAndDistinctIdsStayDistinct() throws Exception {
    LockKeys first = LockKeys.of("p", "account:{eu}:42");
    LockKeys second = LockKeys.of("p", "account:{eu}:43");
    assertThat(first.lock()).isEqualTo("p:{eu}:account:%7Beu%7D:42:lock");
    assertThat(node.call("CLUSTER", "KEYSLOT", first.lock()))
        .isEqualTo(node.call("CLUSTER", "KEYSLOT", second.fence()))
        .isEqualTo(node.call("CLUSTER", "KEYSLOT", "eu"));
    assertThat(LockKeys.of("p", "{}").lock())
        .as("an empty tag is no tag")
        .isEqualTo("p:{%7B%7D}:lock");
    List<String> ids =
        List.of("{eu}", "%7Beu%7D", "eu", "{eu}x", "x{eu}", "{eu}:", "{e}u}", "{{eu}}", "{eu");
    assertThat(ids.stream().map(id -> LockKeys.of("p", id).lock()).distinct().count())
        .isEqualTo(ids.size());
  }

  @Test
  void aSetSharingAHashTagIsOneScriptOnTheCluster(@TempDir Path dir) throws Exception {
    try (RedisLockProvider provider = onCluster(dir, "tagged");
        RedisLockProvider other = onCluster(dir, "tagged")) {
      warmUp(provider);
      // Redisson sends scripts by their SHA on a cluster: the first run of a script the server
      // has not seen yet is refused (NOSCRIPT), loaded and sent again. Load it first.
      String warmTag = lockId();
      List<LeaseGrant> warm =
          provider
              .tryAcquireAll(
                  List.of(
                      request("{" + warmTag + "}:a", Duration.ofMinutes(1)),
                      request("{" + warmTag + "}:b", Duration.ofMinutes(1))))
              .orElseThrow();
      warm.forEach(lease -> assertThat(provider.release(lease)).isTrue());
      String tag = lockId();
      List<LockRequest> requests = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        requests.add(request("account:{" + tag + "}:" + i, Duration.ofMinutes(1)));
      }

      long before = scriptRuns();
      List<LeaseGrant> grants = provider.tryAcquireAll(requests).orElseThrow();
      assertThat(scriptRuns() - before).as("scripts for five locks in one slot").isEqualTo(1);
      for (LeaseGrant grant : grants) {
        assertThat(other.status(grant.lockId()).currentHolder().orElseThrow().fencingToken())
            .isEqualTo(grant.fencingToken());
        assertThat(other.renew(grant, Duration.ofMinutes(2))).isPresent();
      }
      List<LockRequest> again = new ArrayList<>();
      again.add(request("account:{" + tag + "}:new", Duration.ofMinutes(1)));
      again.add(request(grants.get(3).lockId(), Duration.ofMinutes(1)));
      assertThat(other.tryAcquireAll(again)).as("one busy").isEmpty();
      assertThat(other.status(again.get(0).lockId()).currentHolder()).isEmpty();
      grants.forEach(grant -> assertThat(other.release(grant)).isTrue());
    }
  }

  @Test
  void aSetOverSeveralSlotsIsTakenOneByOneAllOrNone(@TempDir Path dir) throws Exception {
    try (RedisLockProvider provider = onCluster(dir, "spread");
        RedisLockProvider other = onCluster(dir, "spread")) {
      warmUp(provider);
      List<LockRequest> requests = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        requests.add(request(lockId(), Duration.ofMinutes(1)));
      }
      List<LockKeys> keys = requests.stream().map(r -> LockKeys.of("spread", r.lockId())).toList();
      assertThat(keys.stream().map(k -> KeySlots.slot(k.lock())).distinct().count())
          .as("slots")
          .isGreaterThan(1);
      assertThat(provider.inOneScript(keys, requests.get(0).lockId())).isFalse();

      long before = scriptRuns();
      List<LeaseGrant> grants = provider.tryAcquireAll(requests).orElseThrow();
      assertThat(scriptRuns() - before).as("one script per lock").isEqualTo(4);
      for (LeaseGrant grant : grants) {
        assertThat(other.status(grant.lockId()).currentHolder().orElseThrow().fencingToken())
            .isEqualTo(grant.fencingToken());
      }
      grants.forEach(grant -> assertThat(provider.release(grant)).isTrue());

      LeaseGrant busy =
          other.tryAcquire(request(requests.get(3).lockId(), Duration.ofMinutes(1))).orElseThrow();
      List<LockRequest> retry =
          requests.stream().map(r -> request(r.lockId(), Duration.ofMinutes(1))).toList();
      assertThat(provider.tryAcquireAll(retry)).isEmpty();
      for (int i = 0; i < 3; i++) {
        assertThat(other.status(retry.get(i).lockId()).currentHolder())
            .as("released after the busy one")
            .isEmpty();
      }
      assertThat(other.release(busy)).isTrue();
    }
  }

  @Test
  void renewAllSendsOneScriptPerSlotAndAnswersInOrder(@TempDir Path dir) throws Exception {
    try (RedisLockProvider provider = onCluster(dir, "renewing");
        RedisLockProvider other = onCluster(dir, "renewing")) {
      warmUp(provider);
      String tag = lockId();
      List<LeaseGrant> leases = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        // Every third lease shares one hash tag, so one slot holds four leases.
        String id = i % 3 == 0 ? "account:{" + tag + "}:" + i : lockId();
        leases.add(provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow());
      }
      // The script is sent by its SHA: load it with a first batch.
      assertThat(
              provider.renewAll(List.of(new RenewalRequest(leases.get(0), Duration.ofMinutes(1)))))
          .hasSize(1);
      LeaseGrant stolen = leases.get(5);
      assertThat(other.release(stolen)).isTrue();
      long slots =
          leases.stream()
              .map(lease -> KeySlots.slot(LockKeys.of("renewing", lease.lockId()).lock()))
              .distinct()
              .count();
      assertThat(slots).isBetween(2L, 9L);

      long before = scriptRuns();
      List<Optional<LeaseGrant>> renewed =
          provider.renewAll(
              leases.stream()
                  .map(lease -> new RenewalRequest(lease, Duration.ofMinutes(5)))
                  .toList());
      assertThat(scriptRuns() - before).as("one script per slot").isEqualTo(slots);

      for (int i = 0; i < leases.size(); i++) {
        LeaseGrant lease = leases.get(i);
        if (i == 5) {
          assertThat(renewed.get(i)).as("released meanwhile").isEmpty();
          continue;
        }
        assertThat(renewed.get(i).orElseThrow().lockId()).isEqualTo(lease.lockId());
        assertThat(other.status(lease.lockId()).currentHolder().orElseThrow().timeLeft())
            .as(lease.lockId())
            .isGreaterThan(Duration.ofMinutes(4));
        assertThat(provider.release(lease)).isTrue();
      }
    }
  }

  /**
   * A sharded set-up reached through one address (a proxy, a managed service's single endpoint, or
   * a cluster node named as a server) refuses a script over keys of several slots, as a cluster
   * does: Redisson detects it when it connects, and the provider splits by slot as on a cluster.
   */
  @Test
  void aClusterReachedThroughOneServerAddressSplitsSetsAndBatchesBySlot() throws Exception {
    try (RedisLockProvider provider =
        RedisLockProvider.create("redis://127.0.0.1:" + node.port() + "?prefix=single")) {
      List<LockRequest> requests = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        requests.add(request(lockId(), Duration.ofMinutes(1)));
      }
      assertThat(
              requests.stream()
                  .map(r -> KeySlots.slot(LockKeys.of("single", r.lockId()).lock()))
                  .distinct()
                  .count())
          .as("slots")
          .isGreaterThan(1);
      // The provider's first call: the set-up is learnt on the way.
      List<LeaseGrant> grants = provider.tryAcquireAll(requests).orElseThrow();
      List<Optional<LeaseGrant>> renewed =
          provider.renewAll(
              grants.stream()
                  .map(lease -> new RenewalRequest(lease, Duration.ofMinutes(2)))
                  .toList());
      assertThat(renewed).allSatisfy(lease -> assertThat(lease).isPresent());
      grants.forEach(grant -> assertThat(provider.release(grant)).isTrue());
    }
  }

  private static void warmUp(RedisLockProvider provider) {
    // The first grant reads maxmemory-policy; later ones run their scripts only.
    LeaseGrant lease = provider.tryAcquire(request(lockId(), Duration.ofMinutes(1))).orElseThrow();
    assertThat(provider.release(lease)).isTrue();
  }

  /** {@code EVAL} and {@code EVALSHA} calls so far on the node, from {@code INFO commandstats}. */
  private static long scriptRuns() throws Exception {
    return RedisTests.scriptRuns(node.call("INFO", "commandstats"));
  }
}
