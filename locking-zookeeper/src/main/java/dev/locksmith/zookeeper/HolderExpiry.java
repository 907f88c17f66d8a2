package dev.locksmith.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Ends a holder's lease whose TTL ran out on the ensemble's clock: its node's last write plus its
 * TTL, compared with the time of a write of the taker's own. The delete is at the node's version,
 * so a renewal that got there first keeps the lease. Nodes that wait for their claim are never
 * expired: only their session ends them.
 */
final class HolderExpiry {
  private final CuratorFramework client;
  private final ZkCalls calls;
  private final LockPaths paths;

  HolderExpiry(CuratorFramework client, ZkCalls calls, LockPaths paths) {
    this.client = client;
    this.calls = calls;
    this.paths = paths;
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
}
