package dev.locksmith.zookeeper;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper servers for the tests, from Curator's {@code curator-test}, bound to 127.0.0.1 only
 * (client, quorum and election ports) and with a tick of 200 ms, so sessions may be as short as 400
 * ms and as long as 60 s.
 */
final class ZkTestServers {
  private ZkTestServers() {}

  /** A spec on a free loopback port; {@code dataDir} null for a temporary one. */
  static InstanceSpec spec(File dataDir, boolean deleteOnClose, int serverId) {
    return new InstanceSpec(
        dataDir,
        -1,
        -1,
        -1,
        deleteOnClose,
        serverId,
        200,
        -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "60000"),
        "127.0.0.1");
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
