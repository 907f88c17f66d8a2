package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.spi.ProviderUrl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  static final int DEFAULT_PORT = 6379;

  /** How long Redisson waits for a reply, unless {@code timeout} says otherwise. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(800);

  /**
   * How long Redisson waits to connect, unless {@code connect-timeout} says otherwise. Longer than
   * the reply timeout: the first connection of a cold JVM includes setting Netty and Redisson up
   * (0.3 to 0.9 s measured on a loaded 2-core machine), and at 800 ms child JVMs starting together
   * failed their first call. A refused connection fails at once whatever this says.
   */
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** How often Redisson resends a failed command, unless {@code retry-attempts} says otherwise. */
  static final int DEFAULT_RETRY_ATTEMPTS = 1;

  // Enough for any store; Redisson refuses Integer.MAX_VALUE.
  private static final int MAX_RETRY_ATTEMPTS = 100;

  /** The pause before a resend, unless {@code retry-interval} says otherwise. */
  static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofMillis(200);

  /**
   * The longest one command takes to fail with the default settings: {@code (timeout +
   * retry-interval) x (retry-attempts + 1)}, 2 s; see {@link #worstCase}.
   */
  static final Duration DEFAULT_WORST_CASE =
      worstCase(DEFAULT_TIMEOUT, DEFAULT_RETRY_INTERVAL, DEFAULT_RETRY_ATTEMPTS);

  /**
   * The longest one command takes to fail against a server that never answers: each of its {@code
   * attempts + 1} sends waits {@code timeout} for the reply and then {@code interval} before the
   * next. A connection refused fails each send at once, so a call then fails after about {@code
   * interval x attempts}.
   */
  static Duration worstCase(Duration timeout, Duration interval, int attempts) {
    return timeout.plus(interval).multipliedBy(attempts + 1L);
  }

  /** The pool size unless {@code pool-size} says otherwise. */
  static final int DEFAULT_POOL_SIZE = 8;

  static final Set<String> SERVER_PARAMETERS =
      Set.of(
          "prefix",
          "timeout",
          "connect-timeout",
          "retry-attempts",
          "retry-interval",
          "client-name",
          "pool-size",
          "allow-eviction",
          "replicas",
          "replica-timeout");
  static final Set<String> FILE_PARAMETERS =
      Set.of(
          "prefix",
          "config",
          "allow-eviction",
          "replicas",
          "replica-timeout",
          "timeout",
          "connect-timeout",
          "retry-attempts",
          "retry-interval",
          "pool-size");

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
      if (scheme.equals("rediss")) {
        throw url.error(
            "names a Redisson YAML file under rediss://, which cannot turn TLS on for the file's"
                + " servers: TLS is set in the file, by rediss:// addresses; write redis:// before"
                + " the file's path");
      }
      return new RedisUrl(fromFile(url), options);
    }
    return new RedisUrl(fromServer(url, scheme), options);
  }

  private static RedisLockOptions options(ProviderUrl url) {
    String prefix = url.parameter("prefix");
    if (prefix == null) {
      prefix = RedisLockOptions.DEFAULT_PREFIX;
    }
    try {
      RedisLockOptions.checkPrefix(prefix);
    } catch (IllegalArgumentException e) {
      throw url.error("parameter 'prefix': " + e.getMessage());
    }
    boolean allowEviction = url.booleanParameter("allow-eviction", false);
    int replicas = nonNegative(url, "replicas", 0);
    Duration replicaTimeout =
        url.durationParameter("replica-timeout", RedisLockOptions.DEFAULT_REPLICA_TIMEOUT);
    try {
      return new RedisLockOptions(prefix, allowEviction, replicas, replicaTimeout);
    } catch (IllegalArgumentException e) {
      throw url.error("parameter 'replica-timeout': " + e.getMessage());
    }
  }

  /** The timeout, retry and pool limits of the URL's parameters, or their defaults. */
  private static ClientLimits limits(ProviderUrl url) {
    Set<String> given = new HashSet<>();
    for (String name : ClientLimits.PARAMETERS) {
      if (url.parameter(name) != null) {
        given.add(name);
      }
    }
    return new ClientLimits(
        millis(url, "timeout", DEFAULT_TIMEOUT),
        millis(url, "connect-timeout", DEFAULT_CONNECT_TIMEOUT),
        atMost(url, "retry-attempts", DEFAULT_RETRY_ATTEMPTS, MAX_RETRY_ATTEMPTS),
        millis(url, "retry-interval", DEFAULT_RETRY_INTERVAL),
        positive(url, "pool-size", DEFAULT_POOL_SIZE),
        given);
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
    Config config;
    try {
      config = Config.fromYAML(file.toFile());
    } catch (IOException | RuntimeException e) {
      throw url.error(
          "names Redisson YAML file '"
              + file
              + "' in its "
              + where
              + ", which Redisson cannot read: "
              + RedisFailures.cleaned(e));
    }
    // Creating the provider never needs the servers: Redisson connects at the first call.
    config.setLazyInitialization(true);
    NodeAddresses.check(config, file, url);
    List<String> changes = limits(url).boundFile(config);
    if (!changes.isEmpty()) {
      LOG.info(
          "Redisson YAML file '{}': {} lowered to Locksmith's bounds, so that a stuck call fails"
              + " within (timeout + retry-interval) x (retry-attempts + 1); give a URL parameter"
              + " beside the file (such as ?timeout=3s) to choose another",
          file,
          String.join(", ", changes));
    }
    return config;
  }

  private static Config fromServer(ProviderUrl url, String scheme) {
    url.requireOnly(SERVER_PARAMETERS);
    String host = url.host();
    int port = url.port(DEFAULT_PORT);
    Config config = new Config();
    // Creating the provider never needs the server: Redisson connects at the first call, and a
    // call while it cannot connect fails and tries again at the next.
    config.setLazyInitialization(true);
    config.setThreads(2);
    config.setNettyThreads(4);
    SingleServerConfig server =
        config
            .useSingleServer()
            .setAddress(scheme + "://" + host + ":" + port)
            .setDatabase(database(url));
    limits(url).applyTo(server);
    String clientName = clientName(url);
    if (clientName != null) {
      server.setClientName(clientName);
    }
    String userInfo = url.uri().getRawUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      // Split before decoding: an encoded ':' (%3A) belongs to the name or password.
      int colon = userInfo.indexOf(':');
      // user@host names a user without a password; :password@host a password alone.
      String user = percentDecoded(colon < 0 ? userInfo : userInfo.substring(0, colon));
      String password = colon < 0 ? "" : percentDecoded(userInfo.substring(colon + 1));
      // On the Config, not the server settings: Redisson 4 warns that those are deprecated.
      if (!user.isEmpty()) {
        config.setUsername(user);
        // Redisson sends AUTH only with a password: an empty one authenticates a nopass user
        // (which takes any), where none left the connection the default user's.
        config.setPassword(password);
      } else if (!password.isEmpty()) {
        config.setPassword(password);
      }
    }
    return config;
  }

  /** A part of a URL with its %XX escapes decoded; a '+' stays a '+'. */
  private static String percentDecoded(String part) {
    return java.net.URLDecoder.decode(
        part.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
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
    if (value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
      // Redisson counts in whole milliseconds, and 0 would mean no timeout at all.
      throw url.error(
          "parameter '"
              + name
              + "' is "
              + Durations.format(value)
              + (value.toMillis() < 1
                  ? "; expected a duration of at least 1ms such as 3s"
                  : "; expected at most 24d (Redisson counts whole milliseconds in an int)"));
    }
    return (int) value.toMillis();
  }

  private static int positive(ProviderUrl url, String name, int defaultValue) {
    int value = url.intParameter(name, defaultValue);
    if (value < 1) {
      throw url.error("parameter '" + name + "' is " + value + "; expected at least 1");
    }
    return value;
  }

  private static int nonNegative(ProviderUrl url, String name, int defaultValue) {
    return atMost(url, name, defaultValue, Integer.MAX_VALUE);
  }

  private static int atMost(ProviderUrl url, String name, int defaultValue, int max) {
    int value = url.intParameter(name, defaultValue);
    if (value < 0 || value > max) {
      throw url.error("parameter '" + name + "' is " + value + "; expected 0 to " + max);
    }
    return value;
  }

  /**
   * The {@code client-name}, stripped, or {@code null}: printable ASCII without spaces, all that
   * Redis takes in {@code CLIENT SETNAME}, which it would refuse on every connection.
   */
  private static @Nullable String clientName(ProviderUrl url) {
    String name = url.parameter("client-name");
    if (name == null || name.isBlank()) {
      return null;
    }
    String stripped = name.strip();
    if (!stripped.chars().allMatch(c -> c > ' ' && c <= '~')) {
      throw url.error(
          "parameter 'client-name' is '"
              + stripped.replaceAll("[^ -~]", "?")
              + "'; Redis takes no spaces, newlines or special characters in a client name"
              + " (printable ASCII only; a '+' in a URL is a space)");
    }
    return stripped;
  }
}
