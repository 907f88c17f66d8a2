package dev.locksmith.jdbc;

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
}
