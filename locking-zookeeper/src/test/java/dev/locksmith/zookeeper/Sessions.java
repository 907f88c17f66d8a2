package dev.locksmith.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** What the ZooKeeper tests do to sessions and servers. */
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

  /** The instance that leads the ensemble now, asked with the {@code srvr} command. */
  static InstanceSpec leader(TestingCluster cluster) throws IOException {
    for (InstanceSpec spec : cluster.getInstances()) {
      if (srvr(spec.getPort()).contains("Mode: leader")) {
        return spec;
      }
    }
    throw new IllegalStateException("no leader in " + cluster.getConnectString());
  }

  private static String srvr(int port) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return "";
    }
  }
}
