package dev.locksmith.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.DelayStrategy;
import org.redisson.config.SingleServerConfig;

/**
 * The client settings that bound how long a lock call takes and how many connections it holds:
 * reply timeout (also the subscription timeout), connect timeout, resends, pause before a resend,
 * and pool size. With a server URL they are set as given (or their defaults). With a Redisson YAML
 * file, a URL parameter beside the file wins; otherwise the file's value stays when it is within
 * the default and is lowered to the default when it is looser, so the README's worst case of a
 * stuck call, {@code (timeout + retry-interval) x (retry-attempts + 1)}, holds for both forms.
 *
 * @param timeout the reply timeout in milliseconds
 * @param connectTimeout the connect timeout in milliseconds
 * @param retryAttempts how often a failed command is resent
 * @param retryInterval the pause before a resend in milliseconds
 * @param poolSize connections (and subscription connections) per node at most
 * @param explicit the names of the URL parameters given, which win over a YAML file's values
 */
record ClientLimits(
    int timeout,
    int connectTimeout,
    int retryAttempts,
    int retryInterval,
    int poolSize,
    Set<String> explicit) {

  /** The URL parameters these limits come from. */
  static final Set<String> PARAMETERS =
      Set.of("timeout", "connect-timeout", "retry-attempts", "retry-interval", "pool-size");

  ClientLimits {
    explicit = Set.copyOf(explicit);
  }

  /** Sets every limit on a single server's settings, as given. */
  void applyTo(SingleServerConfig server) {
    server
        .setTimeout(timeout)
        // A subscription (of a waiter) is bounded like any command, not by Redisson's 7.5 s.
        .setSubscriptionTimeout(timeout)
        .setConnectTimeout(connectTimeout)
        .setRetryAttempts(retryAttempts)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(retryInterval)))
        .setConnectionPoolSize(poolSize)
        .setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionPoolSize(poolSize)
        .setSubscriptionConnectionMinimumIdleSize(1);
  }

  /**
   * Bounds the servers' settings of a configuration read from a YAML file: a given URL parameter
   * replaces the file's value; a file's value looser than the default is lowered to it.
   *
   * @return what was changed, such as {@code timeout 3000ms -> 800ms}, for a log line
   */
  List<String> boundFile(Config config) {
    List<String> changes = new ArrayList<>();
    if (servers(config) instanceof SingleServerConfig server) {
      boundCommon(server, changes);
      server.setConnectionPoolSize(pool("pool-size", server.getConnectionPoolSize(), changes));
      server.setConnectionMinimumIdleSize(
          Math.min(server.getConnectionMinimumIdleSize(), server.getConnectionPoolSize()));
      server.setSubscriptionConnectionPoolSize(
          pool("subscription pool size", server.getSubscriptionConnectionPoolSize(), changes));
      server.setSubscriptionConnectionMinimumIdleSize(
          Math.min(
              server.getSubscriptionConnectionMinimumIdleSize(),
              server.getSubscriptionConnectionPoolSize()));
    } else {
      boundNodes((BaseMasterSlaveServersConfig<?>) servers(config), changes);
    }
    return changes;
  }

  /**
   * How long after sending a command Redisson may send it again while its first copy is still on
   * its way: its reply timeout, after which it resends (after the retry pause), or never ({@link
   * Long#MAX_VALUE}) without retry attempts. It also resends, sooner, a command whose connection
   * dropped and reconnected, but the first copy went with that connection.
   *
   * @return nanoseconds
   */
  static long resendAfterNanos(Config config) {
    BaseConfig<?> servers = servers(config);
    return servers.getRetryAttempts() > 0
        ? TimeUnit.MILLISECONDS.toNanos(servers.getTimeout())
        : Long.MAX_VALUE;
  }

  /** The server settings of {@code config}, whichever of Redisson's modes it uses. */
  private static BaseConfig<?> servers(Config config) {
    if (config.isClusterConfig()) {
      return config.useClusterServers();
    }
    if (config.isSentinelConfig()) {
      return config.useSentinelServers();
    }
    if (config.isSingleConfig()) {
      return config.useSingleServer();
    }
    try {
      return config.useMasterSlaveServers();
    } catch (IllegalStateException replicated) {
      return config.useReplicatedServers();
    }
  }

  private void boundNodes(BaseMasterSlaveServersConfig<?> servers, List<String> changes) {
    boundCommon(servers, changes);
    servers.setMasterConnectionPoolSize(
        pool("master pool size", servers.getMasterConnectionPoolSize(), changes));
    servers.setMasterConnectionMinimumIdleSize(
        Math.min(
            servers.getMasterConnectionMinimumIdleSize(), servers.getMasterConnectionPoolSize()));
    servers.setSlaveConnectionPoolSize(
        pool("replica pool size", servers.getSlaveConnectionPoolSize(), changes));
    servers.setSlaveConnectionMinimumIdleSize(
        Math.min(
            servers.getSlaveConnectionMinimumIdleSize(), servers.getSlaveConnectionPoolSize()));
    servers.setSubscriptionConnectionPoolSize(
        pool("subscription pool size", servers.getSubscriptionConnectionPoolSize(), changes));
    servers.setSubscriptionConnectionMinimumIdleSize(
        Math.min(
            servers.getSubscriptionConnectionMinimumIdleSize(),
            servers.getSubscriptionConnectionPoolSize()));
  }

  private void boundCommon(BaseConfig<?> server, List<String> changes) {
    int replyTimeout = bound("timeout", server.getTimeout(), timeout, "ms", changes);
    server.setTimeout(replyTimeout);
    server.setSubscriptionTimeout(
        bound(
            "subscription timeout", server.getSubscriptionTimeout(), replyTimeout, "ms", changes));
    server.setConnectTimeout(
        bound("connect-timeout", server.getConnectTimeout(), connectTimeout, "ms", changes));
    int attempts = bound("retry-attempts", server.getRetryAttempts(), retryAttempts, "", changes);
    server.setRetryAttempts(attempts);
    DelayStrategy delay = server.getRetryDelay();
    if (explicit.contains("retry-interval")) {
      server.setRetryDelay(new ConstantDelay(Duration.ofMillis(retryInterval)));
    } else if (!(delay instanceof ConstantDelay constant)
        || constant.calcDelay(0).toMillis() > retryInterval) {
      // Redisson's default, EqualJitterDelay, waits up to 2 s, at random.
      changes.add(
          "retry delay "
              + (delay == null ? "none" : delay.getClass().getSimpleName())
              + " -> "
              + retryInterval
              + "ms");
      server.setRetryDelay(new ConstantDelay(Duration.ofMillis(retryInterval)));
    }
  }

  /** The pool size: the parameter when given, else the file's value at most the default. */
  private int pool(String what, int fileValue, List<String> changes) {
    if (explicit.contains("pool-size")) {
      return poolSize;
    }
    if (fileValue > poolSize) {
      changes.add(what + " " + fileValue + " -> " + poolSize);
      return poolSize;
    }
    return fileValue;
  }

  private int bound(String name, int fileValue, int limit, String unit, List<String> changes) {
    if (explicit.contains(name)) {
      return limit;
    }
    if (fileValue > limit) {
      changes.add(name + " " + fileValue + unit + " -> " + limit + unit);
      return limit;
    }
    return fileValue;
  }
}
