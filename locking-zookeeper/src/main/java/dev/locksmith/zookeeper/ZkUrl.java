package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.ProviderUrl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.curator.utils.PathUtils;
import org.jspecify.annotations.Nullable;

/**
 * A {@code zk://host1:2181,host2:2181/base?...} URL, checked part by part.
 *
 * @param connectString the ensemble's {@code host:port} list, each port defaulting to 2181
 * @param basePath the node under which locks live; {@code /locksmith} when the URL has no path
 * @param sessionTimeout the session timeout asked of the ensemble (which may narrow it)
 * @param connectionTimeout how long Curator waits for a connection before a call fails
 * @param timeout one lock call's bound
 * @param digest {@code user:password} for ZooKeeper's digest authentication, or null
 */
record ZkUrl(
    String connectString,
    String basePath,
    Duration sessionTimeout,
    Duration connectionTimeout,
    Duration timeout,
    @Nullable String digest) {
  static final String DEFAULT_BASE_PATH = "/locksmith";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(2);
  private static final Set<String> PARAMETERS =
      Set.of("sessionTimeout", "connectionTimeout", "timeout", "digest");

  static ZkUrl parse(ProviderUrl url) {
    if (!url.scheme().equals("zk")) {
      throw url.error("is not a zk: URL");
    }
    url.requireOnly(PARAMETERS);
    String authority = url.uri().getRawAuthority();
    if (authority == null || authority.isBlank()) {
      throw url.error("has no hosts; expected zk://HOST[:PORT][,HOST[:PORT]...][/base]");
    }
    if (authority.contains("@")) {
      throw url.error("has user information; give credentials as digest=user:password");
    }
    List<String> hosts = new ArrayList<>();
    for (String part : authority.split(",", -1)) {
      hosts.add(hostAndPort(url, part.strip()));
    }
    String path = url.path();
    String base = path.isEmpty() || path.equals("/") ? DEFAULT_BASE_PATH : stripSlash(path);
    try {
      PathUtils.validatePath(base);
    } catch (IllegalArgumentException e) {
      throw url.error("has an invalid base path '" + base + "': " + e.getMessage());
    }
    Duration session = url.durationParameter("sessionTimeout", DEFAULT_SESSION_TIMEOUT);
    check(url, session, "sessionTimeout", Duration.ofMillis(500), Duration.ofMinutes(10));
    Duration connection = url.durationParameter("connectionTimeout", DEFAULT_CONNECTION_TIMEOUT);
    check(url, connection, "connectionTimeout", Duration.ofMillis(100), Duration.ofMinutes(5));
    Duration timeout = url.durationParameter("timeout", DEFAULT_TIMEOUT);
    check(url, timeout, "timeout", Duration.ofMillis(100), Duration.ofMinutes(5));
    String digest = url.parameter("digest");
    if (digest != null && (digest.indexOf(':') <= 0 || digest.endsWith(":"))) {
      throw url.error("parameter 'digest' must be user:password");
    }
    return new ZkUrl(String.join(",", hosts), base, session, connection, timeout, digest);
  }

  private static String hostAndPort(ProviderUrl url, String part) {
    if (part.isEmpty()) {
      throw url.error("has an empty host in its host list");
    }
    int colon = part.lastIndexOf(':');
    boolean bracketed = part.startsWith("[");
    String host = part;
    int port = 2181;
    if (colon > 0 && (!bracketed || part.lastIndexOf(']') < colon)) {
      host = part.substring(0, colon);
      String digits = part.substring(colon + 1);
      try {
        port = Integer.parseInt(digits);
      } catch (NumberFormatException e) {
        throw url.error("has an invalid port '" + digits + "' for host '" + host + "'");
      }
      if (port < 1 || port > 65535) {
        throw url.error("has port " + port + " for host '" + host + "', outside 1 to 65535");
      }
    }
    if (host.isEmpty() || !host.matches("[A-Za-z0-9.\\-_]+|\\[[0-9A-Fa-f:.]+\\]")) {
      throw url.error("has an invalid host '" + host + "'");
    }
    return host + ":" + port;
  }

  private static String stripSlash(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  private static void check(
      ProviderUrl url, Duration value, String name, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw url.error(
          "parameter '"
              + name
              + "' must be between "
              + min.toMillis()
              + " ms and "
              + max.toMinutes()
              + " min, was "
              + value.toMillis()
              + " ms");
    }
  }

  static void checkTimeout(Duration timeout, String name) {
    if (timeout.compareTo(Duration.ofMillis(100)) < 0
        || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new IllegalArgumentException(
          name + " must be between 100 ms and 5 min, was " + timeout.toMillis() + " ms");
    }
  }

  /** The URL without secrets, for descriptions. */
  String describe() {
    return "zk://" + connectString + basePath;
  }
}
