package dev.locksmith.zookeeper;

/**
 * Provider URLs for the tests' ZooKeeper servers, which {@link
 * dev.locksmith.testkit.zookeeper.TestZooKeeper} starts on 127.0.0.1.
 */
final class ZkTestServers {
  private ZkTestServers() {}

  /** A provider URL for {@code connectString} with a test's base path and parameters. */
  static String url(String connectString, String base, String parameters) {
    return "zk://" + connectString + "/" + base + (parameters.isEmpty() ? "" : "?" + parameters);
  }
}
