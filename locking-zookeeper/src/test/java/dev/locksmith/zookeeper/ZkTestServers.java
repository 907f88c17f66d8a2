package dev.locksmith.zookeeper;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper servers for the tests, from Curator's {@code curator-test}, bound to 127.0.0.1 only
 * (client, quorum and election ports) and with a tick of 200 ms, so sessions may be as short as 400
 * ms and as long as 60 s.
 */
final class ZkTestServers {
  private static final Set<Integer> USED = new HashSet<>();

  private ZkTestServers() {}

  /**
   * A spec on free loopback ports, distinct from each other and from every spec made before in this
   * JVM (curator-test's own random ports may repeat); {@code dataDir} null for a temporary one.
   */
  static InstanceSpec spec(File dataDir, boolean deleteOnClose, int serverId) throws IOException {
    int[] ports = freePorts(3);
    return new InstanceSpec(
        dataDir,
        ports[0],
        ports[1],
        ports[2],
        deleteOnClose,
        serverId,
        200,
        -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "60000"),
        "127.0.0.1");
  }

  private static synchronized int[] freePorts(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; ) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        if (USED.add(socket.getLocalPort())) {
          ports[i++] = socket.getLocalPort();
        }
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  /** A started single server keeping its data in {@code dataDir} across restarts. */
  static TestingServer server(File dataDir) throws Exception {
    return new TestingServer(spec(dataDir, false, -1), true);
  }

  /** A started three-server ensemble. */
  static TestingCluster cluster() throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      specs.add(spec(null, true, id));
    }
    TestingCluster cluster = new TestingCluster(specs);
    cluster.start();
    return cluster;
  }

  /** A provider URL for {@code connectString} with a test's base path and parameters. */
  static String url(String connectString, String base, String parameters) {
    return "zk://" + connectString + "/" + base + (parameters.isEmpty() ? "" : "?" + parameters);
  }
}
