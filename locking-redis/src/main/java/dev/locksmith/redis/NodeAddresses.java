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
 * or a {@code +uds} form, in lower case) and parse as Redisson parses it (a port, say). Redisson
 * reads them only when it first connects, so a Sentinel address written as {@code 10.0.0.1:26379}
 * failed every call as if Redis were down, and a cluster address without a port shut the client
 * down for good at its first call, instead of failing the configuration.
 */
final class NodeAddresses {
  private NodeAddresses() {}

  /**
   * Throws the URL's {@link dev.locksmith.core.LockConfigurationException} naming the file, the
   * setting and the address when Redisson would refuse an address.
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
      String written = entry[1];
      String problem = problem(written);
      if (problem != null) {
        throw url.error(
            "names Redisson YAML file '"
                + file
                + "' whose "
                + entry[0]
                + " entry '"
                + written
                + "' "
                + problem);
      }
    }
  }

  /**
   * What Redisson would find wrong with an address when it parses it, at its first connect: a
   * scheme it does not take (only {@code redis}, {@code rediss}, {@code valkey}, {@code valkeys}
   * and their {@code +uds} forms, in lower case), or a part missing, such as the port.
   */
  private static @Nullable String problem(String written) {
    if (!RedisURI.isValid(written)) {
      String stripped = written.strip();
      int scheme = stripped.indexOf("://");
      if (RedisURI.isValid(stripped.toLowerCase(Locale.ROOT))) {
        return "has its scheme in capitals or spaces around it, which Redisson does not take;"
            + " write it in lower case: "
            + stripped.substring(0, scheme).toLowerCase(Locale.ROOT)
            + stripped.substring(scheme);
      }
      return "has no redis://, rediss://, valkey:// or valkeys://; write it as redis://"
          + stripped
          + " (rediss:// for TLS)";
    }
    try {
      new RedisURI(written);
      return null;
    } catch (IllegalArgumentException e) {
      return "is not an address Redisson takes: " + e.getMessage();
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
