package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Creates {@link ZkLockProvider}s for {@code zk:} URLs, each with a Curator client of its own.
 * Creating checks the URL and starts the client, which connects in background: a provider created
 * while the ensemble is unreachable fails its calls until it answers.
 */
public final class ZkLockProviderFactory extends SchemeProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public ZkLockProviderFactory() {
    super(ZkLockProviderFactory::provider, "zk");
  }

  /**
   * A provider with a Curator client of its own for {@code url}; see {@link ZkLockProvider#create}.
   */
  static ZkLockProvider provider(ProviderUrl url) {
    ZkUrl parsed = ZkUrl.parse(url);
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(parsed.connectString())
            .sessionTimeoutMs((int) parsed.sessionTimeout().toMillis())
            .connectionTimeoutMs((int) parsed.connectionTimeout().toMillis())
            .retryPolicy(new BoundedExponentialBackoffRetry(50, 500, 3));
    if (parsed.digest() != null) {
      builder
          .authorization("digest", parsed.digest().getBytes(StandardCharsets.UTF_8))
          .aclProvider(new CreatorOnly());
    }
    CuratorFramework client = builder.build();
    client.start();
    return new ZkLockProvider(client, true, parsed.basePath(), parsed.timeout(), parsed.describe());
  }

  /** With digest credentials, nodes are readable and writable by their creator's identity only. */
  private static final class CreatorOnly implements ACLProvider {
    @Override
    public List<ACL> getDefaultAcl() {
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }
  }
}
