package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import java.io.IOException;
import java.net.URI;

/** Host and port of a {@code jdbc:} URL, and the same URL pointed at a proxy. */
final class Urls {
  private Urls() {}

  static URI server(String jdbcUrl) {
    return URI.create(jdbcUrl.substring("jdbc:".length()));
  }

  static int port(String jdbcUrl, int defaultPort) {
    int port = server(jdbcUrl).getPort();
    return port < 0 ? defaultPort : port;
  }

  static String host(String jdbcUrl) {
    return server(jdbcUrl).getHost();
  }

  /** The URL with its host and port replaced by {@code 127.0.0.1:port}. */
  static String through(String jdbcUrl, int port) {
    return jdbcUrl.replaceFirst("//[^/?]+", "//127.0.0.1:" + port);
  }

  /** A fault proxy in front of the server of {@code jdbcUrl}. */
  static FaultProxy proxyTo(String jdbcUrl, int defaultPort) throws IOException {
    return FaultProxy.start(host(jdbcUrl), port(jdbcUrl, defaultPort));
  }

  /** A provider for {@code jdbcUrl} whose connections go through a fault proxy of its own. */
  static FaultyPath faultyPath(String jdbcUrl, int defaultPort)
      throws IOException, InterruptedException {
    FaultProxy proxy = proxyTo(jdbcUrl, defaultPort);
    return FaultyPath.through(proxy, throughProxy(jdbcUrl, proxy, ""));
  }

  /**
   * A provider for {@code jdbcUrl} plus {@code parameters} whose connections go through {@code
   * proxy}. It has swept already, so that the sweep of its first grant takes no connection and no
   * reply the test's faults are meant for; a sweep that fails (a cold first connection slower than
   * a short timeout) counts all the same.
   */
  static JdbcLockProvider throughProxy(String jdbcUrl, FaultProxy proxy, String parameters)
      throws InterruptedException {
    JdbcLockProvider provider =
        JdbcLockProvider.create(through(jdbcUrl, proxy.port()) + parameters);
    try {
      provider.sweep();
    } catch (LockProviderException e) {
      // counted: the next sweep is one interval later
    }
    return provider;
  }
}
