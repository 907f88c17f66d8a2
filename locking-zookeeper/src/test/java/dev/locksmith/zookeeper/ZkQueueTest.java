package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The queue on a real server: FIFO grants, status and listings read from the nodes, lock nodes
 * removed by the server once empty, a provider over an application's {@link CuratorFramework}. The
 * server checks container nodes every 100 ms here (60 s by default).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkQueueTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static TestingServer server;
  private static CuratorFramework curator;

  @BeforeAll
  static void startServer() throws Exception {
    System.setProperty("znode.container.checkIntervalMs", "100");
    server = TestZooKeeper.start(Files.createTempDirectory("locksmith-zk-queue"));
    curator = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
    curator.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    curator.close();
    server.close();
    System.clearProperty("znode.container.checkIntervalMs");
  }

  private static String lockNode(String id) {
    return "/queue/locks/" + LockPaths.nodeName(id);
  }

  private static ZkLockProvider provider() {
    return ZkLockProvider.create(ZkTestServers.url(server.getConnectString(), "queue", ""));
  }

  @Test
  void waitersAreGrantedInTheOrderTheyQueuedWithRisingTokens() throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    List<ZkLockProvider> clients = new ArrayList<>();
    try (ZkLockProvider holder = provider()) {
      String id = "fifo";
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      List<String> order = new CopyOnWriteArrayList<>();
      List<Future<LeaseGrant>> grants = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ZkLockProvider client = provider();
        clients.add(client);
        String name = "w" + i;
        grants.add(
            pool.submit(
                () -> {
                  LeaseGrant grant =
                      client.acquire(LockRequest.of(id, TTL), Duration.ofSeconds(60)).orElseThrow();
                  order.add(name);
                  client.release(grant);
                  return grant;
                }));
        int queued = i + 1;
        await().atMost(Duration.ofSeconds(10)).until(() -> holder.status(id).waiters() == queued);
      }
      assertThat(holder.release(held)).isTrue();
      long previous = held.fencingToken();
      for (Future<LeaseGrant> grant : grants) {
        long token = grant.get(30, TimeUnit.SECONDS).fencingToken();
        assertThat(token).isGreaterThan(previous);
        previous = token;
      }
      assertThat(order).containsExactly("w0", "w1", "w2", "w3", "w4", "w5");
    } finally {
      pool.shutdownNow();
      clients.forEach(ZkLockProvider::close);
    }
  }

  @Test
  void statusAndListingReadTheHolderTokenAndWaitersFromTheNodes() throws Exception {
    try (ZkLockProvider a = provider();
        ZkLockProvider b = provider()) {
      String odd = "list:../odd id/ü";
      String longId = "list:" + "x".repeat(300);
      LockRequest request = LockRequest.of(odd, TTL);
      LeaseGrant first = a.tryAcquire(request).orElseThrow();
      LeaseGrant second = a.tryAcquire(LockRequest.of(longId, TTL)).orElseThrow();

      LockStatus status = b.status(odd);
      assertThat(status.lockId()).isEqualTo(odd);
      assertThat(status.holder().owner()).isEqualTo(request.owner());
      assertThat(status.holder().fencingToken()).isEqualTo(first.fencingToken());
      assertThat(status.holder().timeLeft()).isPositive().isLessThanOrEqualTo(TTL);
      assertThat(status.waiters()).isZero();

      List<String> held = b.listHeld().orElseThrow().stream().map(LockStatus::lockId).toList();
      assertThat(held).contains(odd, longId);
      assertThat(a.release(first)).isTrue();
      assertThat(a.release(second)).isTrue();
      assertThat(b.status(odd).holder()).isNull();
      assertThat(b.listHeld().orElseThrow().stream().map(LockStatus::lockId).toList())
          .doesNotContain(odd, longId);
    }
  }

  @Test
  void aLockIdLongerThanANodesDataMayBeIsHeldWithoutLosingTheOtherLeases() throws Exception {
    // The id went whole into the node's data: past the server's 1 MB jute.maxbuffer, the server
    // dropped the connection, and the session's suspension was reported as every lease lost.
    String huge = "batch:" + "x".repeat(1_100_000);
    try (ZkLockProvider a = provider();
        ZkLockProvider b = provider()) {
      List<LeaseGrant> lost = new CopyOnWriteArrayList<>();
      a.onLeaseLost(lost::add);
      LeaseGrant nightly = a.tryAcquire(LockRequest.of("nightly", TTL)).orElseThrow();

      LeaseGrant held = a.tryAcquire(LockRequest.of(huge, TTL)).orElseThrow();
      assertThat(b.tryAcquire(LockRequest.of(huge, TTL))).as("held").isEmpty();
      assertThat(b.status(huge).holder().fencingToken()).isEqualTo(held.fencingToken());
      assertThat(b.listHeld().orElseThrow().stream().map(LockStatus::lockId))
          .as("listed by its node's name, as the digest of a long id")
          .contains("nightly", LockPaths.nodeName(huge));
      assertThat(a.release(held)).isTrue();
      assertThat(a.renew(nightly, TTL)).as("the other lease still held").isPresent();
      assertThat(lost).isEmpty();
    }
  }

  @Test
  void aLocksNodeIsRemovedByTheServerOnceItsLastLeaseHasGone() throws Exception {
    try (ZkLockProvider a = provider()) {
      String id = "cleanup";
      String lockNode = lockNode(id);
      LeaseGrant held = a.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      assertThat(curator.checkExists().forPath(lockNode)).isNotNull();
      assertThat(a.release(held)).isTrue();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> curator.checkExists().forPath(lockNode) == null);
      // Taken again after its node went: created again.
      LeaseGrant again = a.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(a.release(again)).isTrue();
    }
  }

  /**
   * The server removes empty container nodes, the lock's node and then its parent {@code locks},
   * between any two requests: an acquire right after them found a parent gone while it created the
   * path again (a {@code NoNode} from Curator's own retry) and failed. Each round here takes the
   * lock just after its node went, while the parent is about to go.
   */
  @Test
  void aLockIsGrantedWhileTheServerRemovesItsEmptyParentNodes() throws Exception {
    try (ZkLockProvider a =
        ZkLockProvider.create(ZkTestServers.url(server.getConnectString(), "churn", ""))) {
      String id = "churn";
      String lockNode = "/churn/locks/" + LockPaths.nodeName(id);
      for (int round = 0; round < 40; round++) {
        LeaseGrant held =
            a.tryAcquire(LockRequest.of(id, TTL))
                .orElseThrow(() -> new AssertionError("free lock refused"));
        assertThat(a.release(held)).isTrue();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> curator.checkExists().forPath(lockNode) == null);
      }
    }
  }

  /**
   * A lease kept for its minimum hold, which shortens it (a hold within the ttl) or lengthens it (a
   * hold longer than the ttl, renewed), outlives the close of a provider over an application's
   * client.
   */
  @ParameterizedTest(name = "ttl {0} s, minHold {1} s")
  @CsvSource({"30, 1", "1, 3"})
  void aLeaseKeptForItsMinHoldOutlivesTheCloseOfAProviderOverAnApplicationsClient(
      long ttlSeconds, long minHoldSeconds) throws Exception {
    String base = "/app/min-hold-" + ttlSeconds;
    ZkLockProvider provider = ZkLockProvider.builder(curator).basePath(base).build();
    Duration minHold = Duration.ofSeconds(minHoldSeconds);
    long grantedAt = System.nanoTime();
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      locksmith
          .acquire(
              LockOptions.named("held-on")
                  .withTtl(Duration.ofSeconds(ttlSeconds))
                  .withMinHold(minHold))
          .close(); // done at once: renewed to end at its minimum hold
    }
    provider.close();
    try (ZkLockProvider same = ZkLockProvider.builder(curator).basePath(base).build()) {
      assertThat(same.tryAcquire(LockRequest.of("held-on", TTL))).isEmpty();
      await()
          .atMost(minHold.plusSeconds(7))
          .until(() -> same.tryAcquire(LockRequest.of("held-on", TTL)).isPresent());
      assertThat(Duration.ofNanos(System.nanoTime() - grantedAt)).isGreaterThanOrEqualTo(minHold);
    }
  }

  @Test
  void aTakeThatCloseOvertakesIsNotGrantedAndLeavesNoNode() throws Exception {
    String base = "/app/closed-while-taking";
    ZkLockProvider provider = ZkLockProvider.builder(curator).basePath(base).build();
    // The client is the application's, so it stays open, and with it any node left behind.
    provider.beforeKeep(lockId -> provider.close());
    assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("overtaken", TTL)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("closed");
    try (ZkLockProvider next = ZkLockProvider.builder(curator).basePath(base).build()) {
      assertThat(next.tryAcquire(LockRequest.of("overtaken", TTL))).as("free at once").isPresent();
    }
  }

  @Test
  void aWaitThatCloseOvertakesBeforeItQueuesFailsAtOnceAndLeavesNoNode() throws Exception {
    String base = "/app/closed-before-queueing";
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (ZkLockProvider holder = ZkLockProvider.builder(curator).basePath(base).build()) {
      String id = "overtaken-waiter";
      holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      // A lease kept for its minimum hold keeps the closed waiter's calls going, as a waiter on
      // an application's client does.
      ZkLockProvider waiter = ZkLockProvider.builder(curator).basePath(base).build();
      try (Locksmith locksmith = Locksmith.builder().defaultProvider(waiter).build()) {
        locksmith.acquire(LockOptions.named("kept").withTtl(TTL).withMinHold(TTL)).close();
      }
      waiter.afterCreate(lockId -> waiter.close());
      Future<?> waiting =
          pool.submit(() -> waiter.acquire(LockRequest.of(id, TTL), Duration.ofSeconds(60)));
      assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
          .as("fails well inside the holder's ttl and its own wait")
          .hasCauseInstanceOf(LockProviderException.class)
          .cause()
          .hasMessageContaining("closed");
      assertThat(holder.status(id).waiters()).as("the waiter's node is gone").isZero();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aGrantNeverOutlivesItsNode() throws Exception {
    try (ZkLockProvider a = provider()) {
      String id = "deleted-by-hand";
      LeaseGrant held = a.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      String lockNode = lockNode(id);
      String lease = curator.getChildren().forPath(lockNode).get(0);
      curator.delete().forPath(lockNode + "/" + lease);
      assertThat(a.renew(held, TTL)).as("its node is gone").isEmpty();
      LeaseGrant next = a.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(a.release(next)).isTrue();
    }
  }

  @Test
  void aWaiterWhoseNodeIsGoneFailsAtOnceInsteadOfRetryingUntilItsWaitRunsOut() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (ZkLockProvider holder = provider();
        ZkLockProvider waiter = provider()) {
      String id = "waiter-node-gone";
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      Future<?> waiting =
          pool.submit(() -> waiter.acquire(LockRequest.of(id, TTL), Duration.ofSeconds(60)));
      await().atMost(Duration.ofSeconds(10)).until(() -> holder.status(id).waiters() == 1);
      String lockNode = lockNode(id);
      List<String> queue = LockPaths.queue(curator.getChildren().forPath(lockNode));
      // As the end of the waiter's session deletes it.
      curator.delete().forPath(lockNode + "/" + queue.get(1));

      assertThat(holder.release(held)).as("wakes the waiter").isTrue();
      assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(LockProviderException.class)
          .cause()
          .hasMessageContaining("is gone");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aHolderWhoseNodeALateWriteMarkedWaitingStillEndsItsLeaseAtItsDeadline() throws Exception {
    try (ZkLockProvider holder = provider();
        ZkLockProvider next = provider()) {
      String id = "late-touch";
      // Long enough that the holder does not end its lease before the test has marked its node,
      // also on a loaded machine (with 1 s, a CI run once found the node already gone).
      holder.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5))).orElseThrow();
      String lockNode = lockNode(id);
      String node = lockNode + "/" + curator.getChildren().forPath(lockNode).get(0);
      LeaseData data = LeaseData.decode(curator.getData().forPath(node));
      // As the waiting mark of a touch that Curator sent again lands after the claim: takers never
      // judge a waiting node by its TTL, so only its own provider can end it.
      curator.setData().forPath(node, data.waiting().encode());

      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> next.tryAcquire(LockRequest.of(id, TTL)).isPresent());
    }
  }

  @Test
  void aWaiterBehindANodeNobodyTendsIsGrantedOnceThatNodesTtlRunsOut() throws Exception {
    String id = "untended";
    Duration shortTtl = Duration.ofSeconds(2);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (ZkLockProvider holder = provider();
        ZkLockProvider waiter = provider()) {
      // The holder's TTL is long, so that only the waiter's own look-again (once a TTL, further
      // back than second) can find the way free: its wait for the holder is no shorter.
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, Duration.ofSeconds(60))).orElseThrow();
      String lockNode = lockNode(id);
      // A holder's node that nobody tends, as a protected create leaves behind when Curator, not
      // finding its first node on a lagging server after a lost reply, creates a second one.
      curator
          .create()
          .withProtection()
          .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .forPath(
              lockNode + "/" + LockPaths.LEASE,
              new LeaseData(true, 1_000, "nobody", "nobody", id).encode());
      Future<LeaseGrant> waiting =
          pool.submit(
              () ->
                  waiter
                      .acquire(LockRequest.of(id, shortTtl), Duration.ofSeconds(60))
                      .orElseThrow());
      await().atMost(Duration.ofSeconds(10)).until(() -> holder.status(id).waiters() == 2);

      assertThat(holder.release(held)).isTrue();
      LeaseGrant granted = waiting.get(15, TimeUnit.SECONDS);
      assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(waiter.release(granted)).isTrue();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void withDigestCredentialsOnlyTheSameIdentityMayTouchTheNodes() throws Exception {
    String url = ZkTestServers.url(server.getConnectString(), "secured", "digest=app:secret");
    try (ZkLockProvider a = ZkLockProvider.create(url);
        ZkLockProvider b = ZkLockProvider.create(url)) {
      LeaseGrant held = a.tryAcquire(LockRequest.of("secured", TTL)).orElseThrow();
      assertThat(b.status("secured").holder().fencingToken()).isEqualTo(held.fencingToken());
      String lockNode = "/secured/locks/secured";
      assertThatThrownBy(() -> curator.getChildren().forPath(lockNode))
          .as("a client without the credentials cannot even list the queue")
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> curator.delete().deletingChildrenIfNeeded().forPath("/secured"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThat(a.description()).doesNotContain("secret");
      assertThat(a.release(held)).isTrue();
    }
  }

  @Test
  void aProviderOverAnApplicationsClientUsesItsBasePathAndLeavesTheClientOpen() throws Exception {
    ZkLockProvider provider = ZkLockProvider.builder(curator).basePath("/app/locking").build();
    LeaseGrant held = provider.tryAcquire(LockRequest.of("app-lock", TTL)).orElseThrow();
    Stat node = curator.checkExists().forPath("/app/locking/locks/app-lock");
    assertThat(node).isNotNull();
    assertThat(node.getNumChildren()).isEqualTo(1);
    assertThat(provider.description()).startsWith("zk://").endsWith("/app/locking");
    assertThat(provider.release(held)).isTrue();
    provider.close();
    assertThat(curator.getState()).isEqualTo(CuratorFrameworkState.STARTED);
    assertThat(curator.checkExists().forPath("/app")).isNotNull();
  }
}
