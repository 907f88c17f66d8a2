package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Deadlines;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.Uninterruptibly;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Leases held by a ZooKeeper session through Apache Curator. A lease is an ephemeral sequential
 * node under {@code <base>/locks/<lock id>/}: the lowest sequence holds, waiters watch only their
 * predecessor, so grants are FIFO and pushed ({@link LeaseQueue}). The fencing token is the node's
 * creation zxid, which the ensemble orders globally and which grows across leader changes.
 *
 * <p>A lease ends at the first of: its release; its TTL on the ensemble's clock (the holder's
 * client deletes its node at its local deadline, and a taker deletes a node whose last renewal plus
 * TTL has passed); the end of the holder's session. When the connection is suspended, or the
 * session lost, every lease is reported lost at once ({@link #onLeaseLost}) and never renewed
 * again; once this process stood still for half the session timeout, the engine counts its leases
 * lost ({@link #pauseLimit}). Create one from a URL ({@link #create(String)}) or over an
 * application's started {@link CuratorFramework} ({@link #builder(CuratorFramework)}).
 */
public final class ZkLockProvider implements LockProvider {
  private final CuratorFramework client;
  private final String description;
  private final ZkCalls calls;
  private final LeaseNodes nodes;
  private final LeaseQueue queue;
  private final Statuses statuses;
  private final Map<String, Held> leases = new ConcurrentHashMap<>();
  private final LeaseEnds ends;
  private final SessionWatch session;
  private final ProviderShutdown shutdown;
  private volatile boolean closed;
  // Tests only: runs with a granted lock's id before the provider keeps its lease.
  private volatile Consumer<String> beforeKeep = lockId -> {};

  ZkLockProvider(
      CuratorFramework client,
      boolean ownsClient,
      String basePath,
      Duration timeout,
      String description) {
    this.client = client;
    this.description = description;
    this.calls = new ZkCalls(timeout, description);
    LockPaths paths = new LockPaths(basePath);
    this.nodes = new LeaseNodes(client, calls, paths);
    this.queue = new LeaseQueue(client, calls, paths, nodes, () -> closed, this::sessionsLost);
    this.statuses = new Statuses(client, calls, paths, leases::get);
    this.ends = new LeaseEnds(client, calls, leases, description);
    this.session = new SessionWatch(leases, this::giveUp, queue::wakeAll, description);
    this.shutdown = new ProviderShutdown(client, ownsClient, calls, ends, description);
    client.getConnectionStateListenable().addListener(session);
  }

  /**
   * A provider for a URL such as {@code zk://127.0.0.1:2181,127.0.0.2:2181/locksmith?
   * sessionTimeout=10s}, with a Curator client of its own; see the module's README.
   *
   * @param url the provider URL
   * @return the provider, which closes its client when closed
   * @throws dev.locksmith.core.LockConfigurationException when a part of the URL is wrong, naming
   *     it
   */
  public static ZkLockProvider create(String url) {
    return ZkLockProviderFactory.provider(ProviderUrl.parse(url));
  }

  /**
   * A builder for a provider over an application's {@link CuratorFramework}, started or to be
   * started by the application, which also closes it; the provider never does.
   *
   * @param client the application's client
   * @return the builder
   */
  public static ZkLockProviderBuilder builder(CuratorFramework client) {
    return new ZkLockProviderBuilder(client);
  }

  /**
   * Installs a hook that runs with a granted lock's id after the ensemble's last answer and before
   * the provider keeps the lease, where a test stops the caller to let the connection drop; tests
   * only.
   */
  void beforeKeep(Consumer<String> hook) {
    this.beforeKeep = hook;
  }

  /**
   * Installs a hook that runs with a lock's id once a request's node is created, before the request
   * queues, where a test closes the provider; tests only.
   */
  void afterCreate(Consumer<String> hook) {
    queue.afterCreate(hook);
  }

  /**
   * Installs a hook that runs with the path of the node a waiter is about to watch, where a test
   * deletes that node; tests only.
   */
  void beforeWatch(Consumer<String> hook) {
    queue.beforeWatch(hook);
  }

  /** How many sessions were lost so far; the session watch is made after the queue. */
  private long sessionsLost() {
    return session.sessionsLost();
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    checkOpen();
    try {
      // Never waits, so it answers no interrupt (the SPI's rule).
      long lostBefore = session.sessionsLost();
      Optional<Held> taken =
          Uninterruptibly.call(
              () -> Optional.ofNullable(queue.take(request, false, System.nanoTime())));
      return Optional.ofNullable(keep(taken.orElse(null), lostBefore));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockProviderException(
          "ZooKeeper "
              + description
              + ": acquire of lock "
              + LockIdText.quoted(request.lockId())
              + " interrupted",
          e);
    }
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    checkOpen();
    long lostBefore = session.sessionsLost();
    return Optional.ofNullable(
        keep(queue.take(request, true, Deadlines.nanosAfter(timeout)), lostBefore));
  }

  /**
   * Keeps a lease just taken; reported lost at once when the connection is suspended now, or when
   * the session was lost since the take began ({@code sessionsLostBefore}).
   */
  private @Nullable LeaseGrant keep(@Nullable Held held, long sessionsLostBefore) {
    if (held == null) {
      return null;
    }
    beforeKeep.accept(held.data.lockId());
    leases.put(held.data.ownerToken(), held);
    if (closed) {
      // close() may have given up the leases before this one was in them: no grant now, whose
      // node would stay while the client does, or go with it while its holder runs on.
      giveUp(held);
      throw new LockProviderException(
          "ZooKeeper "
              + description
              + ": provider closed while taking lock "
              + LockIdText.quoted(held.data.lockId()));
    }
    ends.schedule(held);
    session.kept(held, sessionsLostBefore);
    return held.grant();
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    checkOpen();
    Held held = leases.get(lease.ownerToken());
    if (held == null || held.lost() || !held.grant().lockId().equals(lease.lockId())) {
      return Optional.empty();
    }
    long ttlMillis = Math.max(1, ttl.toMillis());
    long sent = System.nanoTime();
    try {
      // The node is this acquisition's own and only it writes it; a taker that found the lease
      // over deletes it at the version it read, so whichever comes first wins. No version here: a
      // renewal Curator sent again after a lost reply must not fail on its first run's version.
      Stat stat =
          calls.callUninterrupted(
              "renew",
              lease.lockId(),
              () -> client.setData().forPath(held.path, held.data.holdingFor(ttlMillis).encode()));
      LeaseGrant renewed =
          held.grant().renewed(ttl, sent + TimeUnit.MILLISECONDS.toNanos(ttlMillis));
      if (!held.renewed(stat.getVersion(), renewed, !ttl.equals(lease.ttl()))) {
        // Reported lost while the renewal was on its way: lost it stays, and its node goes.
        giveUp(held);
        return Optional.empty();
      }
      ends.schedule(held);
      return Optional.of(renewed);
    } catch (KeeperException e) {
      leases.remove(lease.ownerToken(), held);
      held.endAt(null);
      return Optional.empty();
    }
  }

  @Override
  public boolean release(LeaseGrant lease) {
    checkOpen();
    Held held = leases.remove(lease.ownerToken());
    if (held == null) {
      return false;
    }
    held.endAt(null);
    if (held.lost()) {
      nodes.deleteQuietly(held.path);
      return false;
    }
    try {
      // The node's name is unique to this acquisition: deleting it deletes only its lease.
      calls.callEvenIfGivenUp("release", lease.lockId(), () -> client.delete().forPath(held.path));
      return true;
    } catch (KeeperException.NoNodeException e) {
      // Gone before its deadline and not lost: a first delete whose reply was lost took it.
      return !held.grant().expired();
    } catch (KeeperException e) {
      return false;
    } catch (RuntimeException e) {
      leases.putIfAbsent(lease.ownerToken(), held);
      ends.schedule(held);
      throw e;
    }
  }

  /** {@inheritDoc} Waiters are the other nodes of the lock's queue. */
  @Override
  public LockStatus status(String lockId) {
    checkOpen();
    return statuses.status(lockId);
  }

  @Override
  public Optional<List<LockStatus>> listHeld() {
    checkOpen();
    return Optional.of(statuses.listHeld());
  }

  @Override
  public AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    return session.onLeaseLost(callback);
  }

  /** Forgets a lease and deletes its node, unless another thread gave it up first. */
  private void giveUp(Held held) {
    if (leases.remove(held.data.ownerToken(), held)) {
      held.endAt(null);
      nodes.deleteQuietly(held.path);
    }
  }

  /**
   * {@inheritDoc} Half the session timeout last negotiated with the ensemble. The client sends at
   * least every third of it, so the ensemble last heard from a process that stopped no earlier than
   * a third before the stop, and expires its session no sooner than two thirds after it; the rest
   * is margin. Empty before any session was negotiated, when no lease can have been granted: a
   * limit of zero would end every lease at its first look.
   */
  @Override
  public Optional<Duration> pauseLimit() {
    int session = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    return session > 0 ? Optional.of(Duration.ofMillis(session / 2)) : Optional.empty();
  }

  @Override
  public String description() {
    return description;
  }

  /**
   * The Curator client this provider works through.
   *
   * @return the client
   */
  public CuratorFramework client() {
    return client;
  }

  /**
   * Wakes every waiter (which throws {@link LockProviderException}), deletes the nodes of the
   * leases it still holds, and closes its Curator client when it created it. A lease shortened to a
   * minimum hold keeps its node until its end: the client stays open in background until the last
   * such lease has ended, then closes.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    queue.wakeAll();
    client.getConnectionStateListenable().removeListener(session);
    shutdown.close(leases.values(), this::giveUp);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Lock provider " + description + " is closed");
    }
  }
}
