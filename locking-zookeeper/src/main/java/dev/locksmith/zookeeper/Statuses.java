package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Reads who holds a lock, without writing anything: the lowest node of its queue is the holder (its
 * creation zxid the fencing token), the others wait. The time left is the local deadline for a
 * lease of this provider, else an estimate from the node's last modification and this host's clock,
 * kept between 1 ms and the TTL.
 */
final class Statuses {
  private final CuratorFramework client;
  private final ZkCalls calls;
  private final LockPaths paths;
  private final Function<String, @Nullable Held> local;

  Statuses(
      CuratorFramework client,
      ZkCalls calls,
      LockPaths paths,
      Function<String, @Nullable Held> local) {
    this.client = client;
    this.calls = calls;
    this.paths = paths;
    this.local = local;
  }

  LockStatus status(String lockId) {
    LockStatus status = read(paths.lock(lockId), lockId);
    return status == null ? new LockStatus(lockId, null, 0) : status;
  }

  List<LockStatus> listHeld() {
    List<String> locks;
    try {
      locks =
          calls.callUninterrupted("list", "*", () -> client.getChildren().forPath(paths.locks()));
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException e) {
      throw calls.failure("list", "*", e.toString(), e);
    }
    List<LockStatus> held = new ArrayList<>();
    for (String lock : locks) {
      LockStatus status = read(paths.locks() + "/" + lock, null);
      if (status != null && status.holder() != null) {
        held.add(status);
      }
    }
    return held;
  }

  /** The status of the lock whose queue is {@code lockPath}; null when it has no lease nodes. */
  private @Nullable LockStatus read(String lockPath, @Nullable String lockId) {
    String what = lockId == null ? "*" : lockId;
    for (int attempt = 0; attempt < 5; attempt++) {
      List<String> queue;
      try {
        queue =
            LockPaths.queue(
                calls.callUninterrupted(
                    "status", what, () -> client.getChildren().forPath(lockPath)));
      } catch (KeeperException.NoNodeException e) {
        return null;
      } catch (KeeperException e) {
        throw calls.failure("status", what, e.toString(), e);
      }
      if (queue.isEmpty()) {
        return null;
      }
      Stat stat = new Stat();
      byte[] bytes;
      try {
        String first = lockPath + "/" + queue.get(0);
        bytes =
            calls.callUninterrupted(
                "status", what, () -> client.getData().storingStatIn(stat).forPath(first));
      } catch (KeeperException.NoNodeException e) {
        continue; // released meanwhile
      } catch (KeeperException e) {
        throw calls.failure("status", what, e.toString(), e);
      }
      LeaseData data = LeaseData.decode(bytes);
      if (data == null) {
        return null;
      }
      Duration ttl = Duration.ofMillis(data.ttlMillis());
      Duration left = timeLeft(data, stat, ttl);
      return new LockStatus(
          data.lockId(),
          new LockStatus.Holder(data.owner(), stat.getCzxid(), left),
          queue.size() - 1);
    }
    return null;
  }

  private Duration timeLeft(LeaseData data, Stat stat, Duration ttl) {
    Held held = local.apply(data.ownerToken());
    Duration left;
    if (held != null) {
      left = held.grant().timeLeft();
    } else if (!data.holding()) {
      left = ttl; // granted, its claim on its way
    } else {
      left = Duration.ofMillis(stat.getMtime() + data.ttlMillis() - System.currentTimeMillis());
    }
    if (left.compareTo(Duration.ofMillis(1)) < 0) {
      left = Duration.ofMillis(1);
    }
    return left.compareTo(ttl) > 0 ? ttl : left;
  }
}
