package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviders;
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
  static FaultyPath faultyPath(String jdbcUrl, int defaultPort) throws IOException {
    FaultProxy proxy = proxyTo(jdbcUrl, defaultPort);
    return FaultyPath.through(proxy, LockProviders.create(through(jdbcUrl, proxy.port())));
  }
}
