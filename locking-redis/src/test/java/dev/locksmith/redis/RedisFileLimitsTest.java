package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.TestRedis;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * The YAML form keeps Locksmith's bounds on timeouts, resends and pools: a URL parameter beside the
 * file wins, a file's value looser than the default is lowered to it, a tighter one stays. So a
 * stuck call fails within the README's worst case whatever Redisson's defaults are.
 */
class RedisFileLimitsTest {
  @TempDir Path dir;

  private Path yaml(String address, String extra) throws Exception {
    Path file = Files.createTempFile(dir, "redisson", ".yaml");
    Files.writeString(file, "singleServerConfig:\n  address: \"" + address + "\"\n" + extra);
    return file;
  }

  private static SingleServerConfig server(String url) {
    Config config = RedisUrl.parse(ProviderUrl.parse(url)).config();
    return config.useSingleServer();
  }

  @Test
  void looseFileValuesAndRedissonsDefaultsAreLoweredToLocksmithsBounds() throws Exception {
    Path file =
        yaml(
            "redis://127.0.0.1:6379",
            "  timeout: 10000\n  retryAttempts: 4\n  connectTimeout: 10000\n"
                + "  connectionPoolSize: 64\n  subscriptionConnectionPoolSize: 50\n");
    SingleServerConfig server = server("redis://" + file);
    assertThat(server.getTimeout()).isEqualTo(800);
    assertThat(server.getSubscriptionTimeout()).isEqualTo(800);
    assertThat(server.getConnectTimeout()).isEqualTo(2000);
    assertThat(server.getRetryAttempts()).isEqualTo(1);
    assertThat(server.getRetryDelay().calcDelay(0)).isEqualTo(Duration.ofMillis(200));
    assertThat(server.getRetryDelay().calcDelay(3)).isEqualTo(Duration.ofMillis(200));
    assertThat(server.getConnectionPoolSize()).isEqualTo(8);
    assertThat(server.getConnectionMinimumIdleSize()).isLessThanOrEqualTo(8);
    assertThat(server.getSubscriptionConnectionPoolSize()).isEqualTo(8);

    SingleServerConfig defaults = server("redis://" + yaml("redis://127.0.0.1:6379", ""));
    assertThat(defaults.getTimeout()).isEqualTo(800);
    assertThat(defaults.getRetryAttempts()).isEqualTo(1);
    assertThat(defaults.getConnectionPoolSize()).isEqualTo(8);
  }

  @Test
  void urlParametersWinAndTighterFileValuesStay() throws Exception {
    Path file =
        yaml(
            "redis://127.0.0.1:6379",
            "  timeout: 500\n  retryAttempts: 0\n  connectionPoolSize: 2\n"
                + "  connectionMinimumIdleSize: 1\n");
    SingleServerConfig tighter = server("redis://" + file);
    assertThat(tighter.getTimeout()).isEqualTo(500);
    assertThat(tighter.getRetryAttempts()).isZero();
    assertThat(tighter.getConnectionPoolSize()).isEqualTo(2);

    SingleServerConfig given =
        server(
            "redis://"
                + file
                + "?timeout=3s&retry-attempts=2&retry-interval=50ms&pool-size=16"
                + "&connect-timeout=5s");
    assertThat(given.getTimeout()).isEqualTo(3000);
    assertThat(given.getRetryAttempts()).isEqualTo(2);
    assertThat(given.getRetryDelay().calcDelay(0)).isEqualTo(Duration.ofMillis(50));
    assertThat(given.getConnectionPoolSize()).isEqualTo(16);
    assertThat(given.getConnectTimeout()).isEqualTo(5000);
  }

  @Test
  void aStuckCallThroughTheFileFailsWithinTheDefaultWorstCase() throws Exception {
    URI server = URI.create(TestRedis.sharedUrl());
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      Path file =
          yaml(
              "redis://" + proxy.host() + ":" + proxy.port(),
              "  timeout: 10000\n  retryAttempts: 4\n");
      try (RedisLockProvider provider =
          RedisLockProvider.create("redis://" + file + "?prefix=stuck" + lockId().substring(5))) {
        LeaseGrant warmUp =
            provider.tryAcquire(request(lockId(), Duration.ofMinutes(1))).orElseThrow();
        assertThat(provider.release(warmUp)).isTrue();
        proxy.freeze(FaultProxy.Direction.TO_CLIENT);
        long start = System.nanoTime();
        assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofMinutes(1))))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("did not answer within 800ms");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took)
            .as("(800ms + 200ms) x 2 and Redisson's timer delay, not (10s + 2s) x 5")
            .isLessThan(Duration.ofMillis(3500));
        proxy.thaw(FaultProxy.Direction.TO_CLIENT);
      }
    }
  }

  @Test
  void aSentinelAddressWithoutSchemeIsAConfigurationError() throws Exception {
    Path file = Files.createTempFile(dir, "sentinel", ".yaml");
    Files.writeString(
        file,
        "sentinelServersConfig:\n  masterName: \"mymaster\"\n"
            + "  sentinelAddresses: [\"127.0.0.1:26379\"]\n");
    assertThatThrownBy(() -> RedisLockProvider.create("redis://" + file))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("sentinelAddresses entry '127.0.0.1:26379' has no redis://")
        .hasMessageContaining("redis://127.0.0.1:26379");
  }

  @Test
  void aClusterAddressRedissonWouldRefuseAtItsFirstConnectIsAConfigurationError() throws Exception {
    // Redisson reads cluster addresses at its first connect and shuts the client down for good on
    // one it cannot parse: every call failed, none naming the address.
    for (String address : List.of("redis://127.0.0.1", "REDIS://127.0.0.1:7000")) {
      Path file = Files.createTempFile(dir, "cluster", ".yaml");
      Files.writeString(file, "clusterServersConfig:\n  nodeAddresses: [\"" + address + "\"]\n");
      assertThatThrownBy(() -> RedisLockProvider.create("redis://" + file))
          .as(address)
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("nodeAddresses entry '" + address + "'")
          .hasMessageContaining(address.startsWith("REDIS") ? "lower case" : "port");
    }
  }

  @Test
  void everyNodeSchemeRedissonTakesIsAccepted() throws Exception {
    for (String scheme : List.of("redis", "rediss", "valkey", "valkeys")) {
      Path file = Files.createTempFile(dir, scheme, ".yaml");
      Files.writeString(
          file,
          "sentinelServersConfig:\n  masterName: \"mymaster\"\n"
              + "  sentinelAddresses: [\""
              + scheme
              + "://127.0.0.1:26379\"]\n");
      // Created without contacting a server (lazy initialization).
      RedisLockProvider.create("redis://" + file).close();
    }
  }

  @Test
  void aPrefixWithBracesGetsThePrefixRule() {
    assertThatThrownBy(() -> RedisLockProvider.create("redis://127.0.0.1:6379?prefix=a{b}"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'prefix': prefix 'a{b}' contains '{' or '}'")
        .hasMessageNotContaining("index");
  }

  @Test
  void anUnreadableFileIsReportedOnOneLine() throws Exception {
    Path file = Files.createTempFile(dir, "broken", ".yaml");
    Files.writeString(file, "singleServerConfig:\n  address: [unclosed\n  timeout: x\n");
    assertThatThrownBy(() -> RedisLockProvider.create("redis://" + file))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("which Redisson cannot read")
        .hasMessageNotContaining("\n");
  }

  @Test
  void replicasParametersReachTheOptions() throws Exception {
    RedisUrl server =
        RedisUrl.parse(ProviderUrl.parse("redis://127.0.0.1?replicas=1&replica-timeout=150ms"));
    assertThat(server.options().replicas()).isEqualTo(1);
    assertThat(server.options().replicaTimeout()).isEqualTo(Duration.ofMillis(150));
    RedisUrl file =
        RedisUrl.parse(
            ProviderUrl.parse("redis://" + yaml("redis://127.0.0.1:6379", "") + "?replicas=2"));
    assertThat(file.options().replicas()).isEqualTo(2);
    assertThat(file.options().replicaTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThatThrownBy(
            () -> RedisUrl.parse(ProviderUrl.parse("redis://127.0.0.1?replica-timeout=2m")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'replica-timeout'");
  }
}
