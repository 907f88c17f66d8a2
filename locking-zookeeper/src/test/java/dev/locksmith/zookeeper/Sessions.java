package dev.locksmith.zookeeper;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** What the ZooKeeper tests do to sessions. */
final class Sessions {
  private Sessions() {}

  /**
   * Expires {@code client}'s session on the ensemble, as a server does when it stops hearing from a
   * client: a second connection with the same session id and password closes the session, which
   * deletes its ephemeral nodes at once.
   */
  static void expire(CuratorFramework client, String connectString) throws Exception {
    ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper twin =
        new ZooKeeper(
            connectString,
            10_000,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            },
            zk.getSessionId(),
            zk.getSessionPasswd());
    try {
      if (!connected.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("could not join session " + zk.getSessionId());
      }
    } finally {
      twin.close();
    }
  }
}
