package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.spi.ProviderUrl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * Turns a provider URL into a Redisson {@link Config} and {@link RedisLockOptions}. Two forms:
 *
 * <ul>
 *   <li>{@code redis[s]://[[user]:password@]host[:port][/database][?parameters]}: one server;
 *   <li>{@code redis:///path/to/redisson.yaml[?prefix=...]} or {@code redis:///?config=PATH}: a
 *       Redisson YAML file, for Sentinel, Cluster, replicated servers or TLS details.
 * </ul>
 *
 * @param config the client configuration
 * @param options the provider options
 */
record RedisUrl(Config config, RedisLockOptions options) {
  static final int DEFAULT_PORT = 6379;
  static final Set<String> SERVER_PARAMETERS =
      Set.of(
          "prefix",
          "timeout",
          "connect-timeout",
          "retry-attempts",
          "retry-interval",
          "client-name",
          "pool-size",
          "allow-eviction");
  static final Set<String> FILE_PARAMETERS = Set.of("prefix", "config", "allow-eviction");

  static RedisUrl parse(ProviderUrl url) {
    String scheme = url.scheme();
    if (!scheme.equals("redis") && !scheme.equals("rediss")) {
      throw url.error("has scheme '" + scheme + "'; expected redis:// or rediss://");
    }
    if (url.uri().isOpaque()) {
      throw url.error("is not hierarchical; expected " + scheme + "://HOST:PORT");
    }
    RedisLockOptions options = options(url);
    if (url.uri().getRawAuthority() == null || url.uri().getRawAuthority().isEmpty()) {
      return new RedisUrl(fromFile(url), options);
    }
    return new RedisUrl(fromServer(url, scheme), options);
  }

  private static RedisLockOptions options(ProviderUrl url) {
    boolean allowEviction = url.booleanParameter("allow-eviction", false);
    String prefix = url.parameter("prefix");
    if (prefix == null) {
      return RedisLockOptions.defaults().withAllowEviction(allowEviction);
    }
    try {
      return new RedisLockOptions(prefix, allowEviction);
    } catch (IllegalArgumentException e) {
      throw url.error("parameter 'prefix': " + e.getMessage());
    }
  }

  private static Config fromFile(ProviderUrl url) {
    url.requireOnly(FILE_PARAMETERS);
    String configParameter = url.parameter("config");
    String fileName;
    String where;
    if (configParameter != null && !configParameter.isBlank()) {
      if (!url.path().isEmpty() && !url.path().equals("/")) {
        throw url.error(
            "gives both a path '" + url.path() + "' and parameter 'config'; give the file once");
      }
      fileName = configParameter.strip();
      where = "parameter 'config'";
    } else if (!url.path().isEmpty() && !url.path().equals("/")) {
      fileName = url.path();
      where = "path";
    } else {
      throw url.error(
          "has no host and no Redisson YAML file; expected redis://HOST:PORT,"
              + " redis:///path/to/redisson.yaml or redis:///?config=/path/to/redisson.yaml");
    }
    Path file = Path.of(fileName);
    if (!Files.isRegularFile(file)) {
      throw url.error("names Redisson YAML file '" + file + "' in its " + where + "; no such file");
    }
    try {
      return Config.fromYAML(file.toFile());
    } catch (IOException | RuntimeException e) {
      throw url.error(
          "names Redisson YAML file '"
              + file
              + "' in its "
              + where
              + ", which Redisson cannot read: "
              + e.getMessage());
    }
  }

  private static Config fromServer(ProviderUrl url, String scheme) {
    url.requireOnly(SERVER_PARAMETERS);
    String host = url.host();
    int port = url.port(DEFAULT_PORT);
    if (port < 1 || port > 65_535) {
      throw url.error("has port " + port + "; expected 1 to 65535");
    }
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(4);
    config.setUseScriptCache(true);
    SingleServerConfig server =
        config
            .useSingleServer()
            .setAddress(scheme + "://" + host + ":" + port)
            .setDatabase(database(url))
            .setTimeout(millis(url, "timeout", Duration.ofSeconds(3)))
            .setConnectTimeout(millis(url, "connect-timeout", Duration.ofSeconds(3)))
            .setRetryAttempts(nonNegative(url, "retry-attempts", 3))
            .setRetryInterval(millis(url, "retry-interval", Duration.ofMillis(1500)))
            .setConnectionPoolSize(Math.max(1, nonNegative(url, "pool-size", 8)))
            .setConnectionMinimumIdleSize(1)
            .setSubscriptionConnectionPoolSize(Math.max(1, nonNegative(url, "pool-size", 8)))
            .setSubscriptionConnectionMinimumIdleSize(1);
    String clientName = url.parameter("client-name");
    if (clientName != null && !clientName.isBlank()) {
      server.setClientName(clientName.strip());
    }
    String userInfo = url.uri().getUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      // user@host names a user without a password; :password@host a password alone.
      String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
      String password = colon < 0 ? "" : userInfo.substring(colon + 1);
      if (!user.isEmpty()) {
        server.setUsername(user);
      }
      if (!password.isEmpty()) {
        server.setPassword(password);
      }
    }
    return config;
  }

  private static int database(ProviderUrl url) {
    String path = url.path();
    if (path.isEmpty() || path.equals("/")) {
      return 0;
    }
    String number = path.substring(1);
    try {
      int database = Integer.parseInt(number);
      if (database >= 0) {
        return database;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw url.error("has path '" + path + "'; expected a database number such as /0, or no path");
  }

  private static int millis(ProviderUrl url, String name, Duration defaultValue) {
    Duration value = url.durationParameter(name, defaultValue);
    if (value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
      throw url.error(
          "parameter '"
              + name
              + "' is "
              + Durations.format(value)
              + "; expected a positive duration such as 3s");
    }
    return (int) value.toMillis();
  }

  private static int nonNegative(ProviderUrl url, String name, int defaultValue) {
    int value = url.intParameter(name, defaultValue);
    if (value < 0) {
      throw url.error("parameter '" + name + "' is " + value + "; expected 0 or more");
    }
    return value;
  }
}
