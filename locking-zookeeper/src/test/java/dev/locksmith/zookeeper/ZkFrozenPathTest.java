package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The holder's path to the server frozen by a {@link FaultProxy}, both ways, as a partition does:
 * its client stops hearing the server after two thirds of the session timeout, reports the lease
 * lost, and the server expires the session at the full timeout, which frees the lock for the next
 * waiter. The holder learns of the loss before the waiter is granted, and the waiter's lease is
 * untouched when the path comes back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkFrozenPathTest {
  private static final Duration SESSION = Duration.ofSeconds(3);
  private static final Duration TTL = Duration.ofSeconds(60);

  @RegisterExtension
  static final TestResource<TestingServer> server =
      new TestResource<>(
          () -> TestZooKeeper.start(Files.createTempDirectory("locksmith-zk-frozen")));

  @Test
  void aFrozenHolderIsReportedLostBeforeTheNextWaiterIsGranted() throws Exception {
    String parameters = "sessionTimeout=" + SESSION.toMillis() + "ms";
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", server.get().getPort());
        ZkLockProvider holder =
            ZkLockProvider.create(
                ZkTestServers.url("127.0.0.1:" + proxy.port(), "frozen", parameters));
        ZkLockProvider waiter =
            ZkLockProvider.create(
                ZkTestServers.url(server.get().getConnectString(), "frozen", parameters))) {
      AtomicLong lostAt = new AtomicLong();
      holder.onLeaseLost(grant -> lostAt.set(System.nanoTime()));
      String id = "frozen-holder";
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, TTL)).orElseThrow();
      Future<Optional<LeaseGrant>> next =
          pool.submit(() -> waiter.acquire(LockRequest.of(id, TTL), Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(10)).until(() -> waiter.status(id).waiters() == 1);

      long frozenAt = System.nanoTime();
      proxy.freeze(FaultProxy.Direction.TO_SERVER);
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      LeaseGrant granted =
          next.get(SESSION.multipliedBy(4).toSeconds(), TimeUnit.SECONDS).orElseThrow();
      long grantedAt = System.nanoTime();

      assertThat(lostAt.get()).as("the holder was told").isNotZero();
      assertThat(lostAt.get() - grantedAt)
          .as("the holder learned of the loss before the next waiter was granted")
          .isNegative();
      assertThat(Duration.ofNanos(grantedAt - frozenAt))
          .as("freed by the session's expiry, not by the 60 s TTL")
          .isLessThan(SESSION.multipliedBy(3));
      assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());

      proxy.thaw();
      assertThat(holder.renew(held, TTL)).as("never renewed once reported lost").isEmpty();
      assertThat(holder.release(held)).isFalse();
      assertThat(waiter.renew(granted, TTL)).as("the new holder is untouched").isPresent();
      assertThat(waiter.release(granted)).isTrue();
      System.out.printf(
          "frozen path: holder lost after %d ms, next waiter granted after %d ms (session %d ms)%n",
          TimeUnit.NANOSECONDS.toMillis(lostAt.get() - frozenAt),
          TimeUnit.NANOSECONDS.toMillis(grantedAt - frozenAt),
          SESSION.toMillis());
    } finally {
      pool.shutdownNow();
    }
  }
}
