package dev.locksmith.zookeeper;

import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.PathUtils;

/** Builds a {@link ZkLockProvider} over an application's {@link CuratorFramework}. */
public final class ZkLockProviderBuilder {
  private final CuratorFramework client;
  private String basePath = ZkUrl.DEFAULT_BASE_PATH;
  private Duration timeout = ZkUrl.DEFAULT_TIMEOUT;

  ZkLockProviderBuilder(CuratorFramework client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /**
   * The node under which locks live ({@code <basePath>/locks/...}), relative to the client's
   * namespace; default {@code /locksmith}.
   *
   * @param path the base path, such as {@code /locksmith}
   * @return this builder
   * @throws IllegalArgumentException when it is not a valid ZooKeeper path
   */
  public ZkLockProviderBuilder basePath(String path) {
    try {
      PathUtils.validatePath(path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("basePath '" + path + "' is invalid: " + e.getMessage());
    }
    this.basePath = path;
    return this;
  }

  /**
   * One call's bound, waiting for a connection and retries included; default 2 s.
   *
   * @param timeout the bound
   * @return this builder
   * @throws IllegalArgumentException when outside 100 ms to 5 min
   */
  public ZkLockProviderBuilder timeout(Duration timeout) {
    ZkUrl.checkTimeout(timeout, "timeout");
    this.timeout = timeout;
    return this;
  }

  /**
   * The provider; it never closes the client.
   *
   * @return the provider
   */
  public ZkLockProvider build() {
    String connect = client.getZookeeperClient().getCurrentConnectionString();
    String namespace = client.getNamespace();
    String description =
        "zk://"
            + connect
            + (namespace == null || namespace.isEmpty() ? "" : "/" + namespace)
            + basePath;
    return new ZkLockProvider(client, false, basePath, timeout, description);
  }
}
