package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server restarted with its data: fencing tokens keep rising, and a lease held across the restart
 * (or kept just after the connection dropped) is reported lost when the connection drops and given
 * up once the client reconnects, so the lock is free again long before its TTL.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkRestartTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  /** A test on a server it may stop and restart, with two providers on it. */
  @FunctionalInterface
  private interface ServerTest {
    void run(TestingServer server, ZkLockProvider first, ZkLockProvider second) throws Exception;
  }

  /**
   * Runs {@code test} on a server of its own with these URL parameters, under base path {@code
   * base}.
   */
  private static void withServer(String base, String parameters, ServerTest test) throws Exception {
    Path data = Files.createTempDirectory("locksmith-zk-restart");
    try (TestingServer server = TestZooKeeper.start(data)) {
      String url = ZkTestServers.url(server.getConnectString(), base, parameters);
      try (ZkLockProvider first = ZkLockProvider.create(url);
          ZkLockProvider second = ZkLockProvider.create(url)) {
        test.run(server, first, second);
      }
    }
  }

  @Test
  void tokensRiseAcrossRestartsAndALeaseHeldThroughOneIsReportedLost() throws Exception {
    Path data = Files.createTempDirectory("locksmith-zk-restart");
    try (TestingServer server = TestZooKeeper.start(data)) {
      String url = ZkTestServers.url(server.getConnectString(), "restart", "sessionTimeout=20s");
      String id = "restart";
      List<Long> tokens = new ArrayList<>();
      try (ZkLockProvider holder = ZkLockProvider.create(url);
          ZkLockProvider other = ZkLockProvider.create(url)) {
        tokens.add(grantAndRelease(other, id));
        AtomicLong lostAt = new AtomicLong();
        holder.onLeaseLost(grant -> lostAt.set(System.nanoTime()));
        LeaseGrant held = holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
        tokens.add(held.fencingToken());

        long restartedAt = System.nanoTime();
        server.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> lostAt.get() != 0);
        LeaseGrant next = takeWithin(other, id, Duration.ofSeconds(20));
        assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).isLessThan(TTL.dividedBy(2));
        tokens.add(next.fencingToken());
        assertThat(holder.renew(held, TTL)).isEmpty();
        assertThat(other.release(next)).isTrue();

        server.restart();
        tokens.add(takeAndReleaseWithin(other, id));
      }
      assertThat(tokens).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }
  }

  @Test
  void aQueuedWaiterWhoseSessionIsLostFailsInsteadOfWaitingOutItsWait() throws Exception {
    // Its node went with the session, yet it retried every 500 ms until its own wait ended.
    withServer(
        "queued-lost",
        "sessionTimeout=2s&timeout=1s",
        (server, holder, waiter) -> {
          holder.tryAcquire(LockRequest.of("queued", TTL)).orElseThrow();
          CompletableFuture<Optional<LeaseGrant>> waiting =
              CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return waiter.acquire(LockRequest.of("queued", TTL), Duration.ofMinutes(2));
                    } catch (InterruptedException e) {
                      throw new IllegalStateException(e);
                    }
                  });
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> holder.status("queued").waiters() == 1);

          server.stop();

          assertThat(waiting.handle((taken, failure) -> failure).get(30, TimeUnit.SECONDS))
              .as("the waiter's failure")
              .hasRootCauseInstanceOf(NodeGone.class);
        });
  }

  @Test
  void aRenewalAnsweredAfterItsLeaseWasReportedLostGivesNoGrant() throws Exception {
    // The renewal waited out the drop and Curator sent it again after the reconnection: renew
    // returned a fresh grant for a lease already reported lost, whose node the reconnection then
    // deleted, so a caller of the provider held a lease another process could take.
    withServer(
        "renew-lost",
        "sessionTimeout=20s&timeout=15s",
        (server, holder, other) -> {
          CountDownLatch lost = new CountDownLatch(1);
          holder.onLeaseLost(grant -> lost.countDown());
          LeaseGrant held = holder.tryAcquire(LockRequest.of("renew-lost", TTL)).orElseThrow();

          server.stop();
          CompletableFuture<Optional<LeaseGrant>> renewal =
              CompletableFuture.supplyAsync(() -> holder.renew(held, TTL));
          assertThat(lost.await(10, TimeUnit.SECONDS)).as("reported lost").isTrue();
          server.restart();

          assertThat(renewal.handle((renewed, failure) -> renewed).get(20, TimeUnit.SECONDS))
              .as("the renewal's answer (null when it failed)")
              .satisfiesAnyOf(
                  renewed -> assertThat(renewed).isNull(),
                  renewed -> assertThat(renewed).isEmpty());
        });
  }

  @Test
  void aLeaseShortenedToItsMinHoldKeepsItsNodeThroughARestartThatKeepsTheSession()
      throws Exception {
    Path data = Files.createTempDirectory("locksmith-zk-restart");
    try (TestingServer server = TestZooKeeper.start(data)) {
      String url = ZkTestServers.url(server.getConnectString(), "min-hold", "sessionTimeout=20s");
      try (ZkLockProvider holder = ZkLockProvider.create(url);
          ZkLockProvider other = ZkLockProvider.create(url)) {
        LeaseGrant held = holder.tryAcquire(LockRequest.of("min-hold", TTL)).orElseThrow();
        // Shortened: the holder is done, the lease must live until its new end.
        assertThat(holder.renew(held, TTL.dividedBy(2))).isPresent();
        holder.tryAcquire(LockRequest.of("plain", TTL)).orElseThrow();

        server.restart();
        // The plain lease is given up once the holder has reconnected.
        assertThat(other.release(takeWithin(other, "plain", Duration.ofSeconds(20)))).isTrue();
        await()
            .during(Duration.ofSeconds(1))
            .atMost(Duration.ofSeconds(3))
            .until(
                () ->
                    other
                        .status("min-hold")
                        .currentHolder()
                        .map(holding -> holding.fencingToken() == held.fencingToken())
                        .orElse(false));
      }
    }
  }

  @Test
  void aLeaseKeptAfterTheConnectionDroppedIsReportedLostAtOnceAndGivenUpOnReconnection()
      throws Exception {
    Path data = Files.createTempDirectory("locksmith-zk-restart");
    try (TestingServer server = TestZooKeeper.start(data)) {
      // LOST, which reported such a lease before, comes a whole session after the drop.
      String url = ZkTestServers.url(server.getConnectString(), "late", "sessionTimeout=30s");
      try (ZkLockProvider holder = ZkLockProvider.create(url);
          ZkLockProvider other = ZkLockProvider.create(url)) {
        Set<String> lost = ConcurrentHashMap.newKeySet();
        holder.onLeaseLost(grant -> lost.add(grant.lockId()));
        holder.tryAcquire(LockRequest.of("earlier", TTL)).orElseThrow();
        CountDownLatch answered = new CountDownLatch(1);
        CountDownLatch dropped = new CountDownLatch(1);
        holder.beforeKeep(
            lockId -> {
              answered.countDown();
              awaitQuietly(dropped);
            });
        CompletableFuture<Optional<LeaseGrant>> late =
            CompletableFuture.supplyAsync(() -> holder.tryAcquire(LockRequest.of("late", TTL)));
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();

        server.stop();
        // The listener has gone over the leases the provider kept: "late" is not among them yet.
        await().atMost(Duration.ofSeconds(10)).until(() -> lost.contains("earlier"));
        dropped.countDown();
        assertThat(late.get(10, TimeUnit.SECONDS)).isPresent();
        await().atMost(Duration.ofSeconds(3)).until(() -> lost.contains("late"));

        server.restart();
        // Once the session reconnects, its node goes: free long before its TTL.
        assertThat(other.release(takeWithin(other, "late", Duration.ofSeconds(20)))).isTrue();
      }
    }
  }

  @Test
  void aLeaseTakenInASessionThatEndedBeforeItWasKeptIsReportedLostAndGivenUp() throws Exception {
    Path data = Files.createTempDirectory("locksmith-zk-restart");
    try (TestingServer server = TestZooKeeper.start(data);
        CuratorFramework curator =
            CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(2_000)
                .connectionTimeoutMs(1_000)
                .retryPolicy(new RetryOneTime(100))
                .build()) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      curator.getConnectionStateListenable().addListener((client, state) -> states.add(state));
      curator.start();
      String url = ZkTestServers.url(server.getConnectString(), "expired", "");
      try (ZkLockProvider holder = ZkLockProvider.builder(curator).basePath("/expired").build();
          ZkLockProvider other = ZkLockProvider.create(url)) {
        Set<String> lost = ConcurrentHashMap.newKeySet();
        holder.onLeaseLost(grant -> lost.add(grant.lockId()));
        CountDownLatch answered = new CountDownLatch(1);
        CountDownLatch reconnected = new CountDownLatch(1);
        holder.beforeKeep(
            lockId -> {
              answered.countDown();
              awaitQuietly(reconnected);
            });
        CompletableFuture<Optional<LeaseGrant>> late =
            CompletableFuture.supplyAsync(() -> holder.tryAcquire(LockRequest.of("late", TTL)));
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();

        // The session ends while the server is down; a new one connects after the restart.
        server.stop();
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.LOST));
        server.restart();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> states.get(states.size() - 1) == ConnectionState.RECONNECTED);
        reconnected.countDown();

        assertThat(late.get(10, TimeUnit.SECONDS)).isPresent();
        assertThat(lost).as("its node went with the session it was taken in").contains("late");
        assertThat(other.release(takeWithin(other, "late", Duration.ofSeconds(20)))).isTrue();
      }
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long grantAndRelease(ZkLockProvider provider, String id) {
    LeaseGrant grant = provider.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
    assertThat(provider.release(grant)).isTrue();
    return grant.fencingToken();
  }

  private static long takeAndReleaseWithin(ZkLockProvider provider, String id) {
    LeaseGrant grant = takeWithin(provider, id, Duration.ofSeconds(20));
    assertThat(provider.release(grant)).isTrue();
    return grant.fencingToken();
  }

  /** Takes the lock once the client has reconnected (calls fail until then). */
  private static LeaseGrant takeWithin(ZkLockProvider provider, String id, Duration within) {
    LeaseGrant[] taken = new LeaseGrant[1];
    await()
        .atMost(within)
        .ignoreExceptionsInstanceOf(LockProviderException.class)
        .until(
            () -> {
              Optional<LeaseGrant> grant = provider.tryAcquire(LockRequest.of(id, TTL));
              grant.ifPresent(g -> taken[0] = g);
              return grant.isPresent();
            });
    return taken[0];
  }
}
