package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A follower cut off from its leader while its link to the holder stays healthy: it keeps answering
 * the holder's pings, the leader expires the holder's session after the session timeout and grants
 * the next waiter, and the follower drops its clients only after {@code syncLimit × tickTime}
 * without its leader. With two thirds of the negotiated session timeout above {@code syncLimit ×
 * tickTime} plus a tick, as the README asks, the holder is told before the next waiter is granted.
 *
 * <p>Server 1 reaches the others' quorum ports (where a leader listens for its followers) through
 * {@link FaultProxy} instances: its custom properties override the {@code server.N} lines that
 * {@code QuorumConfigBuilder} writes. Server 1 has the lowest id, so a fresh ensemble does not
 * elect it; the test checks that it follows. Freezing the proxies cuts it off from its leader while
 * its client port serves on; it can still exchange election messages, but serves no client again
 * until it has synced with a leader over a quorum port. The holder's client knows server 1 only,
 * the waiter's the other two.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkIsolatedFollowerTest {
  private static final int TICK = TestZooKeeper.TICK_MILLIS;
  private static final int SYNC_LIMIT = 5;
  // Far above a short session, so that the leader's expiry and the grant it allows finish long
  // before the follower drops its clients, however slowly a loaded machine runs them.
  private static final int LONG_SYNC_LIMIT = 20;

  private static final Duration TTL = Duration.ofSeconds(60);

  private final List<FaultProxy> proxies = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    proxies.forEach(FaultProxy::close);
  }

  @Test
  void anIsolatedFollowersHolderIsReportedLostBeforeTheNextWaiterIsGranted() throws Exception {
    // Two thirds of it (2 s) above syncLimit × tickTime (1 s) plus a tick (1.2 s), as the README
    // asks.
    Duration session = Duration.ofSeconds(3);
    Cut cut = cutOffTheHoldersFollower(session, SYNC_LIMIT);

    assertThat(cut.lostAtGrant()).as("the holder was told before the grant").isNotZero();
    assertThat(cut.lostAtGrant() - cut.grantedAt())
        .as("the holder learned of the loss before the next waiter was granted")
        .isNegative();
    assertThat(cut.lostAfter())
        .as("told by its follower dropping it, before its own client would notice silence")
        .isLessThan(session.multipliedBy(2).dividedBy(3));
    assertThat(cut.grantedAfter())
        .as("freed by the session's expiry on the leader, not by the 60 s TTL")
        .isLessThan(session.multipliedBy(3));
    assertThat(cut.granted().fencingToken()).isGreaterThan(cut.held().fencingToken());
    assertThat(cut.holder().renew(cut.held(), TTL))
        .as("never renewed once reported lost")
        .isEmpty();
    assertThat(cut.waiter().release(cut.granted())).isTrue();
  }

  /**
   * The other side of the README's rule: with a session timeout far below {@code syncLimit ×
   * tickTime} (4 s), the leader expires the session and grants the next waiter while the follower
   * still answers the holder, which is told only afterwards. Fencing tokens are then the only
   * protection.
   */
  @Test
  void belowSyncLimitTicksTheNextWaiterIsGrantedBeforeTheHolderIsTold() throws Exception {
    Duration session = Duration.ofMillis(500);
    Cut cut = cutOffTheHoldersFollower(session, LONG_SYNC_LIMIT);

    assertThat(cut.lostAtGrant()).as("the holder was not told before the grant").isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> cut.lostAt().get() != 0);
    assertThat(cut.lostAfter())
        .as("told when its follower dropped it")
        .isGreaterThan(cut.grantedAfter());
    assertThat(cut.granted().fencingToken()).isGreaterThan(cut.held().fencingToken());
    assertThat(cut.waiter().release(cut.granted())).isTrue();
  }

  /**
   * What a cut observed: the holder's lease and the next waiter's, the holder's loss report time (0
   * until then; {@code lostAtGrant} as it was when the waiter's grant returned), all in {@link
   * System#nanoTime()}.
   */
  private record Cut(
      ZkLockProvider holder,
      ZkLockProvider waiter,
      LeaseGrant held,
      LeaseGrant granted,
      long cutAt,
      long grantedAt,
      long lostAtGrant,
      AtomicLong lostAt) {
    Duration lostAfter() {
      return Duration.ofNanos(lostAt.get() - cutAt);
    }

    Duration grantedAfter() {
      return Duration.ofNanos(grantedAt - cutAt);
    }
  }

  /**
   * Starts the ensemble, takes a lock through server 1 with a holder asking {@code session}, queues
   * a waiter through servers 2 and 3, cuts server 1 off from its leader and waits for the grant.
   */
  private Cut cutOffTheHoldersFollower(Duration session, int syncLimit) throws Exception {
    List<InstanceSpec> plain = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      plain.add(TestZooKeeper.spec(null, true, id));
    }
    List<InstanceSpec> specs = new ArrayList<>();
    for (InstanceSpec spec : plain) {
      Map<String, Object> properties = new HashMap<>();
      properties.put("clientPortAddress", "127.0.0.1");
      properties.put("maxSessionTimeout", "60000");
      properties.put("syncLimit", Integer.toString(syncLimit));
      if (spec.getServerId() == 1) {
        // Server 1 reaches the others' quorum ports, where a leader listens, through proxies.
        for (InstanceSpec peer : plain.subList(1, plain.size())) {
          properties.put(
              "server." + peer.getServerId(),
              String.format(
                  "127.0.0.1:%d:%d;127.0.0.1:%d",
                  proxy(peer.getQuorumPort()), peer.getElectionPort(), peer.getPort()));
        }
      }
      specs.add(
          new InstanceSpec(
              spec.getDataDirectory(),
              spec.getPort(),
              spec.getElectionPort(),
              spec.getQuorumPort(),
              true,
              spec.getServerId(),
              TICK,
              -1,
              properties,
              "127.0.0.1"));
    }
    TestingCluster cluster = new TestingCluster(specs);
    closeables.add(cluster);
    cluster.start();
    InstanceSpec isolated = specs.get(0);
    String others = connectString(specs.get(1)) + "," + connectString(specs.get(2));
    await().atMost(Duration.ofSeconds(30)).until(() -> srvr(isolated).contains("Mode: follower"));
    assertThat(proxies.stream().mapToInt(FaultProxy::connections).sum())
        .as("server 1's links run through the proxies")
        .isPositive();

    String parameters = "sessionTimeout=" + session.toMillis() + "ms";
    CuratorFramework curator = holderClient(connectString(isolated), session);
    closeables.add(curator);
    curator.start();
    ZkLockProvider holder = ZkLockProvider.builder(curator).basePath("/isolated").build();
    closeables.add(holder);
    ZkLockProvider waiter =
        ZkLockProvider.create(ZkTestServers.url(others, "isolated", parameters));
    closeables.add(waiter);
    AtomicLong lostAt = new AtomicLong();
    holder.onLeaseLost(grant -> lostAt.compareAndSet(0, System.nanoTime()));
    String id = "isolated-follower";
    LeaseGrant held = holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
    // The grant's time and the holder's loss report as they stood then, noted on the waiter's
    // thread as soon as its acquire returns.
    AtomicLong grantedAt = new AtomicLong();
    AtomicLong lostAtGrant = new AtomicLong();
    Future<Optional<LeaseGrant>> next =
        pool.submit(
            () -> {
              Optional<LeaseGrant> grant =
                  waiter.acquire(LockRequest.of(id, TTL), Duration.ofSeconds(60));
              lostAtGrant.set(lostAt.get());
              grantedAt.set(System.nanoTime());
              return grant;
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> waiter.status(id).waiters() == 1);

    long cutAt = System.nanoTime();
    for (FaultProxy proxy : proxies) {
      proxy.freeze(FaultProxy.Direction.TO_SERVER);
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
    }
    LeaseGrant granted = next.get(30, TimeUnit.SECONDS).orElseThrow();
    Cut cut =
        new Cut(holder, waiter, held, granted, cutAt, grantedAt.get(), lostAtGrant.get(), lostAt);
    await().atMost(Duration.ofSeconds(10)).until(() -> lostAt.get() != 0);
    System.out.printf(
        "isolated follower: holder lost after %d ms, next waiter granted after %d ms"
            + " (session %d ms, syncLimit x tickTime %d ms)%n",
        cut.lostAfter().toMillis(),
        cut.grantedAfter().toMillis(),
        session.toMillis(),
        syncLimit * TICK);
    return cut;
  }

  /** Starts a proxy to {@code port} on 127.0.0.1 and returns its port. */
  private int proxy(int port) throws IOException {
    FaultProxy proxy = FaultProxy.start("127.0.0.1", port);
    proxies.add(proxy);
    return proxy.port();
  }

  /**
   * The holder's client, configured as the provider's factory configures its own, but without
   * Curator's ensemble tracker: that reads the ensemble's configuration and would move the client
   * to the leader once its follower drops it, whereas in a partition the holder reaches its
   * follower only.
   */
  private static CuratorFramework holderClient(String connectString, Duration session) {
    return CuratorFrameworkFactory.builder()
        .connectString(connectString)
        .ensembleTracker(false)
        .sessionTimeoutMs((int) session.toMillis())
        .connectionTimeoutMs(2000)
        .retryPolicy(new BoundedExponentialBackoffRetry(50, 500, 3))
        .build();
  }

  private static String connectString(InstanceSpec spec) {
    return "127.0.0.1:" + spec.getPort();
  }

  private static String srvr(InstanceSpec spec) {
    try {
      return TestZooKeeper.fourLetterWord(spec.getPort(), "srvr");
    } catch (IOException e) {
      return "";
    }
  }
}
