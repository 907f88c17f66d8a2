package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A request's own lease node on the ensemble: its create in the lock's queue (the lock's container
 * node sent ahead when not seen lately, the create sent again when the server removes an empty
 * parent under it), its rewrites, and its delete once it is no grant.
 */
final class LeaseNodes {
  /**
   * How many times an acquire creates its node when the server keeps removing an empty parent (the
   * lock's node or the {@code locks} node, both containers) under it: each removal needs the
   * server's container check to land between two requests of the same create.
   */
  static final int PARENT_RACE_ATTEMPTS = 5;

  private static final BackgroundCallback IGNORE = (c, e) -> {};

  private final CuratorFramework client;
  private final ZkCalls calls;
  private final LockPaths paths;
  private final KnownParents parents = new KnownParents();

  LeaseNodes(CuratorFramework client, ZkCalls calls, LockPaths paths) {
    this.client = client;
    this.calls = calls;
    this.paths = paths;
  }

  /**
   * A lease node just created.
   *
   * @param path the node's path
   * @param stat its stat as the create left it, empty when Curator found the node of an earlier
   *     attempt
   */
  record Created(String path, Stat stat) {}

  /** Creates {@code data}'s node in lock {@code id}'s queue; one deleted later if it gave up. */
  Created create(String id, LeaseData data) throws InterruptedException {
    Stat stat = new Stat();
    try {
      String path =
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
                for (int attempt = 1; ; attempt++) {
                  try {
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
                  } catch (KeeperException.NoNodeException e) {
                    // The server removed an empty parent (a container) between Curator creating
                    // the path again and creating the node in it; nothing was created.
                    if (attempt == PARENT_RACE_ATTEMPTS) {
                      throw e;
                    }
                  }
                }
              },
              this::deleteQuietly);
      return new Created(path, stat);
    } catch (KeeperException e) {
      throw calls.failure("acquire", id, e.toString(), e);
    }
  }

  /**
   * The stat of a lease node just created. Curator leaves the caller's stat empty when a protected
   * create that it resent after a lost reply (a server restart, a leader election) finds the node
   * the first attempt made; its creation zxid is the fencing token, so it is read back, never taken
   * as 0.
   */
  Stat stat(String id, Created created) throws InterruptedException {
    if (created.stat().getCzxid() != 0) {
      return created.stat();
    }
    Stat read;
    try {
      read = calls.call("acquire", id, () -> client.checkExists().forPath(created.path()), null);
    } catch (KeeperException e) {
      throw calls.failure("acquire", id, e.toString(), e);
    }
    if (read == null) {
      throw new NodeGone(id);
    }
    return read;
  }

  /**
   * Writes the request's own node. Only its owner writes it, so no version is checked: a write that
   * Curator sent again after a lost reply must not fail on the version its first run moved on.
   */
  Stat write(String id, String path, LeaseData data) throws InterruptedException {
    try {
      return calls.call("acquire", id, () -> client.setData().forPath(path, data.encode()), null);
    } catch (KeeperException.NoNodeException e) {
      // Its session ended: retrying would find it gone again until the wait ran out.
      throw new NodeGone(id);
    } catch (KeeperException e) {
      throw new LockProviderException(
          "ZooKeeper: the queue node of lock "
              + LockIdText.quoted(id)
              + " changed or is gone: "
              + e,
          e);
    }
  }

  /** Deletes a node of ours that is not (or no longer) a grant, retrying in background. */
  void deleteQuietly(String path) {
    try {
      client.delete().guaranteed().inBackground().forPath(path);
    } catch (Exception e) {
      // The session's end removes it.
    }
  }
}
