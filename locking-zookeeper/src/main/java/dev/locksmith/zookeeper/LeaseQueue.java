package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.WakeSignal;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
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
  private final CuratorFramework client;
  private final ZkCalls calls;
  private final LockPaths paths;
  private final BooleanSupplier closed;
  private final Set<WakeSignal> waiters = ConcurrentHashMap.newKeySet();
  private final KnownParents parents = new KnownParents();

  LeaseQueue(CuratorFramework client, ZkCalls calls, LockPaths paths, BooleanSupplier closed) {
    this.client = client;
    this.calls = calls;
    this.paths = paths;
    this.closed = closed;
  }

  /**
   * Takes the lock, waiting until {@code waitDeadline} on the {@code nanoTime} clock when {@code
   * wait}; the node is removed again when not granted.
   */
  @Nullable Held take(LockRequest request, boolean wait, long waitDeadline)
      throws InterruptedException {
    String id = request.lockId();
    long ttl = Math.max(1, request.ttl().toMillis());
    LeaseData data = new LeaseData(true, ttl, request.ownerToken(), request.owner(), id);
    Stat stat = new Stat();
    long sent = System.nanoTime();
    String path;
    try {
      path =
          calls.call(
              "acquire",
              id,
              () -> {
                String lock = paths.lock(id);
                if (!parents.contains(lock)) {
                  // Sent ahead of the lease node on the same session, so one round trip creates
                  // both; fails harmlessly when the lock's node exists.
                  client.create().withMode(CreateMode.CONTAINER).inBackground(IGNORE).forPath(lock);
                }
                String created =
                    client
                        .create()
                        .storingStatIn(stat)
                        .creatingParentContainersIfNeeded()
                        .withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(lock + "/" + LockPaths.LEASE, data.encode());
                parents.add(lock);
                return created;
              },
              this::deleteQuietly);
    } catch (KeeperException e) {
      throw calls.failure("acquire", id, e.toString(), e);
    }
    boolean granted = false;
    try {
      Held held = queue(request, path, data, stat, sent, wait, waitDeadline);
      granted = held != null;
      return held;
    } finally {
      if (!granted) {
        deleteQuietly(path);
      }
    }
  }

  private @Nullable Held queue(
      LockRequest request,
      String path,
      LeaseData data,
      Stat created,
      long sent,
      boolean wait,
      long waitDeadline)
      throws InterruptedException {
    String id = request.lockId();
    String name = LockPaths.name(path);
    long czxid = created.getCzxid();
    int version = created.getVersion();
    long serverNow = created.getCtime();
    boolean holding = true;
    long grantSent = sent;
    WakeSignal signal = new WakeSignal();
    waiters.add(signal);
    try {
      while (true) {
        List<String> queue = children(id);
        int index = queue.indexOf(name);
        if (index < 0) {
          throw new LockProviderException(
              "ZooKeeper: the queue node of lock '" + id + "' is gone (its session ended)");
        }
        if (index == 0) {
          if (!holding) {
            grantSent = System.nanoTime();
            version = setData(id, path, data, version).getVersion();
          }
          LeaseGrant grant = new LeaseGrant(id, request.ownerToken(), czxid, request.ttl(), 0);
          return new Held(
              path, data, version, grant.renewed(request.ttl(), grantSent + ttlNanos(data)));
        }
        long holderLeft = expireIfOver(id, queue.get(0), serverNow);
        if (holderLeft <= 0) {
          continue;
        }
        if (!wait || waitDeadline - System.nanoTime() <= 0) {
          return null;
        }
        if (holding) {
          Stat waiting = setData(id, path, data.waiting(), version);
          version = waiting.getVersion();
          serverNow = waiting.getMtime();
          holding = false;
          continue;
        }
        String predecessor = paths.lease(id, queue.get(index - 1));
        Stat watched =
            call(
                "wait",
                id,
                () -> client.checkExists().usingWatcher(new Wake(signal)).forPath(predecessor));
        if (watched == null) {
          continue;
        }
        long waitNanos = waitDeadline - System.nanoTime();
        if (index == 1 && holderLeft != Long.MAX_VALUE) {
          waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(holderLeft + 10));
        }
        signal.await(waitNanos);
        if (closed.getAsBoolean()) {
          throw new LockProviderException("ZooKeeper: provider closed while waiting for " + id);
        }
        if (waitDeadline - System.nanoTime() <= 0) {
          return null;
        }
        Stat touched = setData(id, path, data.waiting(), version);
        version = touched.getVersion();
        serverNow = touched.getMtime();
      }
    } finally {
      waiters.remove(signal);
    }
  }

  /**
   * Deletes the holder {@code child} when its lease ran out by {@code serverNow} on the ensemble's
   * clock.
   *
   * @return 0 when it was deleted or is gone, else the milliseconds it has left ({@link
   *     Long#MAX_VALUE} for a node that waits for its claim, which only its session ends)
   */
  long expireIfOver(String id, String child, long serverNow) throws InterruptedException {
    String path = paths.lease(id, child);
    Stat stat = new Stat();
    byte[] bytes;
    try {
      bytes =
          calls.call("status", id, () -> client.getData().storingStatIn(stat).forPath(path), null);
    } catch (KeeperException.NoNodeException e) {
      return 0;
    } catch (KeeperException e) {
      throw calls.failure("status", id, e.toString(), e);
    }
    LeaseData holder = LeaseData.decode(bytes);
    if (holder == null || !holder.holding()) {
      return Long.MAX_VALUE;
    }
    long left = stat.getMtime() + holder.ttlMillis() - serverNow;
    if (left > 0) {
      return left;
    }
    try {
      calls.call(
          "expire", id, () -> client.delete().withVersion(stat.getVersion()).forPath(path), null);
    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
      // Released or renewed meanwhile: look again.
    } catch (KeeperException e) {
      throw calls.failure("expire", id, e.toString(), e);
    }
    return 0;
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

  private Stat setData(String id, String path, LeaseData data, int version)
      throws InterruptedException {
    try {
      return calls.call(
          "acquire",
          id,
          () -> client.setData().withVersion(version).forPath(path, data.encode()),
          null);
    } catch (KeeperException e) {
      throw new LockProviderException(
          "ZooKeeper: the queue node of lock '" + id + "' changed or is gone: " + e, e);
    }
  }

  private <T> T call(String action, String id, ZkCalls.Call<T> call) throws InterruptedException {
    try {
      return calls.call(action, id, call, null);
    } catch (KeeperException e) {
      throw calls.failure(action, id, e.toString(), e);
    }
  }

  private static long ttlNanos(LeaseData data) {
    return TimeUnit.MILLISECONDS.toNanos(data.ttlMillis());
  }

  /** Deletes a node of ours that is not (or no longer) a grant, retrying in background. */
  void deleteQuietly(String path) {
    try {
      client.delete().guaranteed().inBackground().forPath(path);
    } catch (Exception e) {
      // The session's end removes it.
    }
  }

  /** Wakes every waiter of this provider, after a reconnect or on close. */
  void wakeAll() {
    waiters.forEach(WakeSignal::wake);
  }

  /** How many threads of this provider wait now. */
  int waiting() {
    return waiters.size();
  }

  private static final org.apache.curator.framework.api.BackgroundCallback IGNORE = (c, e) -> {};

  private record Wake(WakeSignal signal) implements org.apache.zookeeper.Watcher {
    @Override
    public void process(org.apache.zookeeper.WatchedEvent event) {
      signal.wake();
    }
  }
}
