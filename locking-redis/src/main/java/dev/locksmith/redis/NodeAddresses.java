package dev.locksmith.redis;

import dev.locksmith.core.spi.ProviderUrl;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.redisson.config.Config;
import org.redisson.config.MasterSlaveServersConfig;
import org.redisson.misc.RedisURI;

/**
 * Checks the node addresses of a Redisson YAML file when the provider is created: each must have a
 * scheme Redisson takes ({@code redis://}, {@code rediss://}, {@code valkey://}, {@code valkeys://}
 * or a {@code +uds} form). Redisson reads them only when it first connects, so a Sentinel address
 * written as {@code 10.0.0.1:26379} failed every call as if Redis were down instead of failing the
 * configuration.
 */
final class NodeAddresses {
  private NodeAddresses() {}

  /**
   * Throws the URL's {@link dev.locksmith.core.LockConfigurationException} naming the file, the
   * setting and the address when an address has no scheme Redisson takes.
   */
  static void check(Config config, Path file, ProviderUrl url) {
    List<String[]> addresses = new ArrayList<>();
    if (config.isClusterConfig()) {
      add(addresses, "nodeAddresses", config.useClusterServers().getNodeAddresses());
    } else if (config.isSentinelConfig()) {
      add(addresses, "sentinelAddresses", config.useSentinelServers().getSentinelAddresses());
    } else if (config.isSingleConfig()) {
      add(addresses, "address", nullable(config.useSingleServer().getAddress()));
    } else {
      MasterSlaveServersConfig masterSlave;
      try {
        masterSlave = config.useMasterSlaveServers();
      } catch (IllegalStateException replicated) {
        add(addresses, "nodeAddresses", config.useReplicatedServers().getNodeAddresses());
        masterSlave = null;
      }
      if (masterSlave != null) {
        if (masterSlave.getMasterAddress() == null && masterSlave.getSlaveAddresses().isEmpty()) {
          // No server section at all: asking for the master/slave one made an empty one.
          throw url.error(
              "names Redisson YAML file '"
                  + file
                  + "' that names no server; give it singleServerConfig, clusterServersConfig,"
                  + " sentinelServersConfig, replicatedServersConfig or masterSlaveServersConfig");
        }
        add(addresses, "masterAddress", nullable(masterSlave.getMasterAddress()));
        add(addresses, "slaveAddresses", List.copyOf(masterSlave.getSlaveAddresses()));
      }
    }
    for (String[] entry : addresses) {
      String address = entry[1].strip().toLowerCase(Locale.ROOT);
      // The schemes Redisson takes: redis, rediss, valkey, valkeys, and their +uds forms.
      if (!RedisURI.isValid(address)) {
        throw url.error(
            "names Redisson YAML file '"
                + file
                + "' whose "
                + entry[0]
                + " entry '"
                + entry[1]
                + "' has no redis://, rediss://, valkey:// or valkeys://; write it as redis://"
                + entry[1].strip()
                + " (rediss:// for TLS)");
      }
    }
  }

  /** An unset address is Redisson's to report; only written ones are checked. */
  private static List<String> nullable(@Nullable String address) {
    return address == null ? List.of() : List.of(address);
  }

  private static void add(List<String[]> addresses, String setting, List<String> values) {
    for (String value : values) {
      if (value == null) {
        continue;
      }
      addresses.add(new String[] {setting, value});
    }
  }
}
