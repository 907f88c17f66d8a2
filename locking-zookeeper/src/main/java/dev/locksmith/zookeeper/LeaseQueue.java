package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.WakeSignal;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Taking a lock: the request's node joins the lock's queue (an ephemeral sequential node, so the
 * session's end removes it), the lowest sequence holds, and a waiter watches only its predecessor,
 * so grants are FIFO and pushed, without a herd. A holder whose lease ran out on the ensemble's
 * clock (its node's last modification plus its TTL, compared with the time of a write of the
 * taker's own) is deleted by the next in line or by an attempt to take the lock, at its node's
 * version, so a renewal that got there first keeps it.
 */
final class LeaseQueue {
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final CuratorFramework client;
  private final ZkCalls calls;
  private final LockPaths paths;
  private final LeaseNodes nodes;
  private final BooleanSupplier closed;
  private final LongSupplier sessionsLost;
  private final Set<WakeSignal> waiters = ConcurrentHashMap.newKeySet();
  private volatile Consumer<String> afterCreate = id -> {};
  private final HolderExpiry expiry;
  private final PredecessorWatch predecessors;

  LeaseQueue(
      CuratorFramework client,
      ZkCalls calls,
      LockPaths paths,
      LeaseNodes nodes,
      BooleanSupplier closed,
      LongSupplier sessionsLost) {
    this.client = client;
    this.calls = calls;
    this.paths = paths;
    this.nodes = nodes;
    this.closed = closed;
    this.sessionsLost = sessionsLost;
    this.expiry = new HolderExpiry(client, calls, paths);
    this.predecessors = new PredecessorWatch(client, calls);
  }

  /**
   * Takes the lock, waiting until {@code waitDeadline} on the {@code nanoTime} clock when {@code
   * wait}; the node is removed again when not granted.
   */
  @Nullable Held take(LockRequest request, boolean wait, long waitDeadline)
      throws InterruptedException {
    String id = request.lockId();
    long lostBefore = sessionsLost.getAsLong();
    long ttl = Math.max(1, request.ttl().toMillis());
    LeaseData data = new LeaseData(true, ttl, request.ownerToken(), request.owner(), id);
    long sent = System.nanoTime();
    LeaseNodes.Created node = nodes.create(id, data);
    afterCreate.accept(id);
    boolean granted = false;
    try {
      Held held =
          queue(
              request,
              node.path(),
              data,
              nodes.stat(id, node),
              sent,
              wait,
              waitDeadline,
              lostBefore);
      granted = held != null;
      return held;
    } finally {
      if (!granted) {
        nodes.deleteQuietly(node.path());
      }
    }
  }

  /** Where a queued request stands. */
  private static final class Position {
    int version;
    long serverNow;
    boolean holding = true;
    boolean touch;
    boolean again;
    long grantSent;
    int index = -1;
  }

  private @Nullable Held queue(
      LockRequest request,
      String path,
      LeaseData data,
      Stat created,
      long sent,
      boolean wait,
      long waitDeadline,
      long sessionsLostBefore)
      throws InterruptedException {
    Position at = new Position();
    at.version = created.getVersion();
    at.serverNow = created.getCtime();
    at.grantSent = sent;
    WakeSignal signal = new WakeSignal();
    waiters.add(signal);
    try {
      // After the add: a close() from now on wakes this waiter, and one before it is seen here.
      if (closed.getAsBoolean()) {
        throw new LockProviderException(
            "ZooKeeper: provider closed while taking " + LockIdText.quoted(request.lockId()));
      }
      while (true) {
        try {
          Held held = step(request, path, data, created.getCzxid(), at, wait, waitDeadline, signal);
          if (held != null) {
            return held;
          }
          if (at.again) {
            at.again = false;
          } else if (at.holding || waitDeadline - System.nanoTime() <= 0) {
            return null;
          }
        } catch (NodeGone e) {
          throw e;
        } catch (LockProviderException e) {
          // A queued waiter keeps its place through a lost connection (a leader election, a
          // server gone): its node lives as long as its session. It tries again once reconnected.
          if (at.holding || closed.getAsBoolean() || waitDeadline - System.nanoTime() <= 0) {
            throw e;
          }
          checkSession(request, sessionsLostBefore);
          signal.await(Math.min(waitDeadline - System.nanoTime(), RETRY_NANOS));
          if (closed.getAsBoolean()) {
            throw new LockProviderException(
                "ZooKeeper: provider closed while waiting for " + request.lockId(), e);
          }
          checkSession(request, sessionsLostBefore);
          at.touch = true;
        }
      }
    } finally {
      waiters.remove(signal);
    }
  }

  /**
   * Fails a queued request whose session was lost since it was queued: its node went with the
   * session, and retrying until its wait ends would only hold the caller.
   */
  private void checkSession(LockRequest request, long sessionsLostBefore) {
    if (sessionsLost.getAsLong() != sessionsLostBefore) {
      throw new NodeGone(request.lockId());
    }
  }

  /**
   * One look at the queue: the grant when first, null when not granted now (given up, or woken to
   * look again while waiting).
   */
  private @Nullable Held step(
      LockRequest request,
      String path,
      LeaseData data,
      long czxid,
      Position at,
      boolean wait,
      long waitDeadline,
      WakeSignal signal)
      throws InterruptedException {
    String id = request.lockId();
    if (at.touch) {
      touch(id, path, data, at);
    }
    List<String> queue = children(id);
    int index = queue.indexOf(LockPaths.name(path));
    if (index < 0) {
      throw new NodeGone(id);
    }
    if (index == 1 && at.index > 1 && !at.holding) {
      // Just moved up behind the holder: the holder is judged against a time of now, not of the
      // last touch, which may be as old as the whole wait further back.
      touch(id, path, data, at);
    }
    at.index = index;
    if (index == 0) {
      if (!at.holding) {
        at.grantSent = System.nanoTime();
        at.version = nodes.write(id, path, data).getVersion();
      }
      LeaseGrant grant = new LeaseGrant(id, request.ownerToken(), czxid, request.ttl(), 0);
      return new Held(
          path, data, at.version, grant.renewed(request.ttl(), at.grantSent + ttlNanos(data)));
    }
    long holderLeft = expiry.expireIfOver(id, queue.get(0), at.serverNow);
    if (holderLeft <= 0) {
      at.touch = !at.holding;
      at.again = true;
      return null;
    }
    if (!wait || waitDeadline - System.nanoTime() <= 0) {
      return null;
    }
    if (at.holding) {
      Stat waiting = nodes.write(id, path, data.waiting());
      at.version = waiting.getVersion();
      at.serverNow = waiting.getMtime();
      at.holding = false;
      return null;
    }
    String predecessor = paths.lease(id, queue.get(index - 1));
    if (!predecessors.watch(id, predecessor, signal)) {
      return null;
    }
    long waitNanos = waitDeadline - System.nanoTime();
    if (holderLeft != Long.MAX_VALUE) {
      waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(holderLeft + 10));
    }
    if (index > 1) {
      // Further back, a look again at least once a TTL: a predecessor that nobody tends (a
      // second node of a protected create) never wakes its successor when the queue moves.
      waitNanos = Math.min(waitNanos, ttlNanos(data));
    }
    signal.await(waitNanos);
    if (closed.getAsBoolean()) {
      throw new LockProviderException("ZooKeeper: provider closed while waiting for " + id);
    }
    at.touch = index == 1;
    return null;
  }

  /** Installs a hook that runs with the lock's id once a request's node is created; tests only. */
  void afterCreate(Consumer<String> hook) {
    this.afterCreate = hook;
  }

  /** Installs a hook that runs with the path of the node a waiter is about to watch; tests only. */
  void beforeWatch(Consumer<String> hook) {
    predecessors.beforeWatch(hook);
  }

  /** Marks the node waiting again, which reads the ensemble's time of now. */
  private void touch(String id, String path, LeaseData data, Position at)
      throws InterruptedException {
    Stat touched = nodes.write(id, path, data.waiting());
    at.version = touched.getVersion();
    at.serverNow = touched.getMtime();
    at.touch = false;
  }

  List<String> children(String id) throws InterruptedException {
    try {
      return LockPaths.queue(
          calls.call("acquire", id, () -> client.getChildren().forPath(paths.lock(id)), null));
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException e) {
      throw calls.failure("acquire", id, e.toString(), e);
    }
  }

  private static long ttlNanos(LeaseData data) {
    return TimeUnit.MILLISECONDS.toNanos(data.ttlMillis());
  }

  /** Wakes every waiter of this provider, after a reconnect or on close. */
  void wakeAll() {
    waiters.forEach(WakeSignal::wake);
  }

  /** How many threads of this provider wait now. */
  int waiting() {
    return waiters.size();
  }
}
