package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.ProviderFigures;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;

/**
 * A quick, bounded measurement (not a test) on a {@link TestingServer} on 127.0.0.1: uncontended
 * tryAcquire+release on one client, the hand-off from a release to a waiter in another client, and
 * the order in which 20 queued waiters in four clients are granted. At most 2000 lock+unlock pairs
 * and 50 hand-offs, and at most 30 s each.
 */
public final class ZkFigures {
  private static final int QUEUED = 20;

  private ZkFigures() {}

  /** Starts a server, measures, prints the figures. */
  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    try (TestingServer server =
            TestZooKeeper.start(Files.createTempDirectory("locksmith-zk-figures"));
        ZkLockProvider a = provider(server);
        ZkLockProvider b = provider(server)) {
      new ProviderFigures(id -> a.status(id).waiters() > 0, Duration.ofMillis(50))
          .measure(a.description(), a, b, pool);
      fifo(server, a, pool);
    } finally {
      pool.shutdownNow();
    }
  }

  private static ZkLockProvider provider(TestingServer server) {
    return ZkLockProvider.create(ZkTestServers.url(server.getConnectString(), "figures", ""));
  }

  /** Queues waiters one after another in four clients and prints whether grants kept that order. */
  private static void fifo(TestingServer server, ZkLockProvider holder, ExecutorService pool)
      throws Exception {
    List<ZkLockProvider> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        clients.add(provider(server));
      }
      String id = "figures-fifo";
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).get();
      List<Integer> order = new CopyOnWriteArrayList<>();
      List<Future<?>> waiters = new ArrayList<>();
      for (int i = 0; i < QUEUED; i++) {
        int number = i;
        ZkLockProvider client = clients.get(i % clients.size());
        waiters.add(
            pool.submit(
                () -> {
                  LeaseGrant grant =
                      client
                          .acquire(
                              LockRequest.of(id, Duration.ofSeconds(10)), Duration.ofSeconds(30))
                          .orElseThrow();
                  order.add(number);
                  client.release(grant);
                  return null;
                }));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (holder.status(id).waiters() <= i && System.nanoTime() < until) {
          TimeUnit.MILLISECONDS.sleep(2);
        }
      }
      holder.release(held);
      for (Future<?> waiter : waiters) {
        waiter.get(30, TimeUnit.SECONDS);
      }
      List<Integer> sorted = new ArrayList<>(order);
      Collections.sort(sorted);
      System.out.printf(
          "  FIFO: %d waiters in 4 clients granted in queue order: %s%n",
          order.size(), order.equals(sorted));
    } finally {
      clients.forEach(ZkLockProvider::close);
    }
  }
}
