package dev.locksmith.benchmarks.zookeeper;

import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.zookeeper.ZkLockProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The systems compared on one ZooKeeper server, each a contender with a ZooKeeper session of its
 * own (as a process would have) that holds at most one lock at a time. {@code InterProcessMutex} is
 * thread-bound: a contender is used from one thread only.
 */
final class ZkContenders {
  /** The session timeout of every client here, and the TTL of Locksmith's leases. */
  static final Duration SESSION = Duration.ofSeconds(10);

  private ZkContenders() {}

  /** A started Curator client of its own for {@code connectString}. */
  static CuratorFramework curator(String connectString) {
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) SESSION.toMillis())
            .connectionTimeoutMs(2000)
            .retryPolicy(new BoundedExponentialBackoffRetry(50, 500, 3))
            .build();
    client.start();
    return client;
  }

  /** The contender named {@code system}: {@code raw}, {@code locksmith} or {@code curator}. */
  static Contender open(String system, String connectString) throws Exception {
    return switch (system) {
      case "raw" -> new Raw(curator(connectString));
      case "locksmith" -> new Locksmith(connectString);
      case "curator" -> new Curator(curator(connectString));
      default -> throw new IllegalArgumentException("unknown system '" + system + "'");
    };
  }

  /**
   * The baseline: one plain ephemeral node created (the lock) and deleted (the release), the least
   * any ZooKeeper lock does. It cannot wait.
   */
  private static final class Raw implements Contender {
    private final CuratorFramework client;
    private @Nullable String held;

    Raw(CuratorFramework client) throws Exception {
      this.client = client;
      client.blockUntilConnected(10, TimeUnit.SECONDS);
      client.create().orSetData().creatingParentsIfNeeded().forPath("/bench/raw");
    }

    @Override
    public boolean tryLock(String key) throws Exception {
      String path = "/bench/raw/" + key;
      try {
        client.create().withMode(CreateMode.EPHEMERAL).forPath(path);
      } catch (KeeperException.NodeExistsException e) {
        return false;
      }
      held = path;
      return true;
    }

    @Override
    public boolean lock(String key, Duration wait) {
      throw new UnsupportedOperationException("the raw baseline cannot wait");
    }

    @Override
    public void unlock() throws Exception {
      client.delete().forPath(held);
      held = null;
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** Locksmith's provider through its SPI, with a Curator client of its own (its URL). */
  private static final class Locksmith implements Contender {
    private final ZkLockProvider provider;
    private @Nullable LeaseGrant held;

    Locksmith(String connectString) {
      this.provider =
          ZkLockProvider.create(
              "zk://" + connectString + "/bench?sessionTimeout=" + SESSION.toMillis() + "ms");
    }

    @Override
    public boolean tryLock(String key) {
      held = provider.tryAcquire(LockRequest.of(key, SESSION)).orElse(null);
      return held != null;
    }

    @Override
    public boolean lock(String key, Duration wait) throws InterruptedException {
      held = provider.acquire(LockRequest.of(key, SESSION), wait).orElse(null);
      return held != null;
    }

    @Override
    public void unlock() {
      if (held == null || !provider.release(held)) {
        throw new IllegalStateException("Locksmith's lease was not released");
      }
      held = null;
    }

    @Override
    public void close() {
      provider.close();
    }
  }

  /** Curator's {@code InterProcessMutex}, one per key, under {@code /bench/curator}. */
  private static final class Curator implements Contender {
    private final CuratorFramework client;
    private final java.util.Map<String, InterProcessMutex> mutexes = new java.util.HashMap<>();
    private @Nullable InterProcessMutex held;

    Curator(CuratorFramework client) {
      this.client = client;
    }

    private InterProcessMutex mutex(String key) {
      return mutexes.computeIfAbsent(
          key, k -> new InterProcessMutex(client, "/bench/curator/" + k));
    }

    @Override
    public boolean tryLock(String key) throws Exception {
      return lock(key, Duration.ZERO);
    }

    @Override
    public boolean lock(String key, Duration wait) throws Exception {
      InterProcessMutex mutex = mutex(key);
      if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        return false;
      }
      held = mutex;
      return true;
    }

    @Override
    public void unlock() throws Exception {
      if (held == null) {
        throw new IllegalStateException("Curator's mutex is not held");
      }
      held.release();
      held = null;
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
