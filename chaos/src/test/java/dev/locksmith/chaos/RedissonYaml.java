package dev.locksmith.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Redisson YAML files for the provider's Sentinel and Cluster forms ({@code redis:///PATH}), with
 * the provider's default bounds (1 s reply timeout, one retry, 2 s to connect) and a topology scan
 * every 500 ms, so that a failover is picked up quickly.
 */
final class RedissonYaml {
  private static final String COMMON =
      """
      threads: 2
      nettyThreads: 4
      %s:
        timeout: 1000
        connectTimeout: 2000
        retryAttempts: 1
        scanInterval: 500
        masterConnectionMinimumIdleSize: 1
        slaveConnectionMinimumIdleSize: 1
        subscriptionConnectionMinimumIdleSize: 1
      """;

  private RedissonYaml() {}

  /** A Sentinel configuration: {@code masterName} and the Sentinels' addresses. */
  static String sentinelUrl(Path dir, String masterName, List<String> sentinels)
      throws IOException {
    String text =
        COMMON.formatted("sentinelServersConfig")
            + "  masterName: \""
            + masterName
            + "\"\n  sentinelAddresses:\n"
            + list(sentinels);
    return url(dir.resolve("sentinel.yaml"), text);
  }

  /** A Cluster configuration: the nodes' addresses. */
  static String clusterUrl(Path dir, List<String> nodes) throws IOException {
    String text = COMMON.formatted("clusterServersConfig") + "  nodeAddresses:\n" + list(nodes);
    return url(dir.resolve("cluster.yaml"), text);
  }

  private static String list(List<String> addresses) {
    return addresses.stream().map(a -> "  - \"" + a + "\"\n").collect(Collectors.joining());
  }

  private static String url(Path file, String text) throws IOException {
    Files.writeString(file, text);
    return "redis://" + file.toAbsolutePath();
  }
}
