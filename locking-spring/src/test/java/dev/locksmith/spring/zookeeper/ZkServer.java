package dev.locksmith.spring.zookeeper;

import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** A started ZooKeeper server from Curator's {@code curator-test}, bound to 127.0.0.1 only. */
final class ZkServer {
  private ZkServer() {}

  /** A started server on a free port, its data in a temporary directory deleted on close. */
  static TestingServer start() throws Exception {
    InstanceSpec spec =
        new InstanceSpec(
            null,
            -1,
            -1,
            -1,
            true,
            -1,
            200,
            -1,
            Map.of("clientPortAddress", "127.0.0.1"),
            "127.0.0.1");
    return new TestingServer(spec, true);
  }
}
