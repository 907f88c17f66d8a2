package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reply to a lease node's protected create lost on its way back through a {@link FaultProxy},
 * after the server made the node: the client reconnects on the same session, Curator resends the
 * create, finds the node the first one made and returns its path without its stat. The grant still
 * carries that node's creation zxid as its fencing token (read back, never 0), above the token of
 * an earlier grant, and its renewal and release work.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkLostCreateReplyTest {
  /**
   * Long enough that no ping is due while the create is under way, so its reply is the one lost.
   */
  private static final Duration SESSION = Duration.ofSeconds(30);

  private static final Duration TTL = Duration.ofSeconds(30);
  private static final String BASE = "/lost-create-reply";

  @RegisterExtension
  static final TestResource<TestingServer> server = new TestResource<>(TestZooKeeper::start);

  @Test
  void aGrantWhoseCreateReplyWasLostCarriesItsNodesCreationZxid() throws Exception {
    String id = "lost-create-reply";
    AtomicInteger reconnects = new AtomicInteger();
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", server.get().getPort());
        CuratorFramework client = client(proxy);
        CuratorFramework observer =
            CuratorFrameworkFactory.newClient(
                server.get().getConnectString(), new RetryOneTime(100))) {
      client
          .getConnectionStateListenable()
          .addListener(
              (changed, state) -> {
                if (state == ConnectionState.RECONNECTED) {
                  reconnects.incrementAndGet();
                }
              });
      client.start();
      observer.start();
      try (ZkLockProvider provider =
              ZkLockProvider.builder(client)
                  .basePath(BASE)
                  .timeout(Duration.ofSeconds(10))
                  .build();
          ZkLockProvider other =
              ZkLockProvider.create(
                  ZkTestServers.url(server.get().getConnectString(), BASE.substring(1), ""))) {
        loseTheCreateReply(proxy, provider, other, observer, id, reconnects);
      }
    }
  }

  private static void loseTheCreateReply(
      FaultProxy proxy,
      ZkLockProvider provider,
      ZkLockProvider other,
      CuratorFramework observer,
      String id,
      AtomicInteger reconnects)
      throws Exception {
    // The earlier grant creates the lock's node, so the next acquire sends one create only.
    LeaseGrant earlier = provider.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
    assertThat(earlier.fencingToken()).isPositive();
    assertThat(provider.release(earlier)).isTrue();

    proxy.loseNextReply();
    LeaseGrant granted = provider.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();

    await()
        .atMost(Duration.ofSeconds(10))
        .alias("the client reconnected after the reply was lost")
        .until(() -> reconnects.get() > 0);
    String lock = BASE + "/locks/" + id;
    List<String> nodes = observer.getChildren().forPath(lock);
    assertThat(nodes).as("one lease node: the resent create found the first one's").hasSize(1);
    Stat node = observer.checkExists().forPath(lock + "/" + nodes.get(0));
    assertThat(granted.fencingToken())
        .as("the fencing token of a grant whose create reply was lost")
        .isPositive()
        .isGreaterThan(earlier.fencingToken())
        .isEqualTo(node.getCzxid());
    assertThat(other.status(id).holder().fencingToken()).isEqualTo(granted.fencingToken());
    assertThat(other.tryAcquire(LockRequest.of(id, TTL))).as("held").isEmpty();

    Optional<LeaseGrant> renewed = provider.renew(granted, TTL);
    assertThat(renewed).as("renewed").isPresent();
    assertThat(renewed.get().fencingToken()).isEqualTo(granted.fencingToken());
    assertThat(provider.release(renewed.get())).as("released").isTrue();
    LeaseGrant next = other.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(granted.fencingToken());
    assertThat(other.release(next)).isTrue();
  }

  /** A client through the proxy, configured as the provider's factory configures its own. */
  private static CuratorFramework client(FaultProxy proxy) {
    return CuratorFrameworkFactory.builder()
        .connectString(proxy.host() + ":" + proxy.port())
        .sessionTimeoutMs((int) SESSION.toMillis())
        .connectionTimeoutMs(5000)
        .retryPolicy(new BoundedExponentialBackoffRetry(50, 500, 3))
        .build();
  }
}
