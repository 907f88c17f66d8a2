package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.ConsoleLog;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A Redis whose {@code maxmemory-policy} may evict lock keys is refused at the provider's first
 * acquire (creating a provider never contacts Redis), in every configuration form, unless the user
 * opts out.
 */
class RedisEvictionPolicyTest {
  private static final String USER = "locker";
  private static final String PASSWORD = "s3cret-pw";
  private static RedisServerProcess allKeysLru;
  private static RedisServerProcess volatileLru;
  private static RedisServerProcess noEviction;

  @BeforeAll
  static void startServers() {
    // An ACL user with a password; the default user stays open for the test kit's PING.
    allKeysLru =
        TestRedis.startDedicated(
            "--maxmemory-policy",
            "allkeys-lru",
            "--user",
            USER,
            "on",
            ">" + PASSWORD,
            "~*",
            "&*",
            "+@all");
    volatileLru = TestRedis.startDedicated("--maxmemory-policy", "volatile-lru");
    noEviction = TestRedis.startDedicated("--maxmemory-policy", "noeviction");
  }

  @AfterAll
  static void stopServers() {
    for (RedisServerProcess server :
        new RedisServerProcess[] {allKeysLru, volatileLru, noEviction}) {
      if (server != null) {
        server.close();
      }
    }
  }

  private static String withPassword(RedisServerProcess server) {
    return "redis://" + USER + ":" + PASSWORD + "@127.0.0.1:" + server.port();
  }

  /**
   * The server refused the connection's AUTH or SELECT: that was reported as the server being
   * unreachable, with Redisson's wrapper's class names, the server's reason deep in the causes.
   */
  @Test
  void aWrongPasswordOrDatabaseIsNamedNotReportedAsUnreachable() {
    String wrongPassword = "redis://" + USER + ":wrong-pw@127.0.0.1:" + allKeysLru.port();
    String noSuchDatabase = "redis://127.0.0.1:" + volatileLru.port() + "/99";
    for (String url : new String[] {wrongPassword, noSuchDatabase}) {
      try (LockProvider provider = LockProviders.create(url)) {
        assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(5))))
            .as(url)
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("refused the connection")
            .hasMessageNotContaining("unreachable")
            .hasMessageNotContaining("wrong-pw");
      }
    }
    try (LockProvider provider = LockProviders.create(wrongPassword)) {
      assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(5))))
          .hasMessageContaining("WRONGPASS");
    }
    try (LockProvider provider = LockProviders.create(noSuchDatabase)) {
      assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(5))))
          .hasMessageContaining("DB index is out of range");
    }
  }

  @Test
  void allKeysPolicyIsRefusedNamingTheRedactedUrlThePolicyAndTheFix() throws Exception {
    String url = withPassword(allKeysLru) + "?prefix=evict";
    try (LockProvider provider = LockProviders.create(url)) {
      String id = lockId();
      assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("redis://" + USER + ":****@127.0.0.1:" + allKeysLru.port())
          .hasMessageNotContaining(PASSWORD)
          .hasMessageContaining("maxmemory-policy 'allkeys-lru'")
          .hasMessageContaining("noeviction")
          .hasMessageContaining("allow-eviction=true");
      // Refused again at every acquire, waiting or not, and nothing was written.
      assertThatThrownBy(() -> provider.acquire(request(id, Duration.ofSeconds(30)), Duration.ZERO))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("maxmemory-policy 'allkeys-lru'");
      assertThat(allKeysLru.call("EXISTS", LockKeys.of("evict", id).lock())).isEqualTo(0L);
    }
  }

  @Test
  void anInterruptedCallerStillHasThePolicyCheckedAndKeepsItsInterrupt() {
    try (RedisLockProvider provider = RedisLockProvider.create(volatileLru.url())) {
      // An answer before the first grant (an outage probe, a health check): the check then runs
      // on the acquiring thread.
      provider.status(lockId());
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))))
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("maxmemory-policy 'volatile-lru'");
        assertThat(Thread.currentThread().isInterrupted()).as("the interrupt kept").isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))))
          .as("refused again, not taken as checked")
          .isInstanceOf(LockConfigurationException.class);
    }
  }

  @Test
  void volatilePolicyIsRefusedBecauseLockKeysAreTheKeysWithATtl() {
    try (RedisLockProvider provider = RedisLockProvider.create(volatileLru.url())) {
      assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining(volatileLru.url())
          .hasMessageContaining("maxmemory-policy 'volatile-lru'")
          .hasMessageContaining("TTL")
          .hasMessageContaining("noeviction")
          .hasMessageContaining("allow-eviction=true");
    }
  }

  @Test
  void theOptOutParameterLetsTheProviderWorkWithAWarning() {
    for (String url :
        new String[] {
          withPassword(allKeysLru) + "?allow-eviction=true",
          volatileLru.url() + "?prefix=optout&allow-eviction=true"
        }) {
      try (ConsoleLog log = new ConsoleLog();
          LockProvider provider = LockProviders.create(url)) {
        assertLocks(provider);
        assertThat(log.lines("WARN", "going on because eviction is allowed (allow-eviction=true)"))
            .as("warned for %s", url)
            .isNotEmpty();
      }
    }
  }

  @Test
  void noEvictionIsAccepted() {
    try (LockProvider provider = LockProviders.create(noEviction.url())) {
      assertLocks(provider);
    }
    try (LockProvider provider = LockProviders.create(noEviction.url() + "?allow-eviction=false")) {
      assertLocks(provider);
    }
  }

  @Test
  void theRedissonYamlFormIsCheckedToo(@TempDir Path dir) throws Exception {
    Path evicting = yaml(dir.resolve("volatile.yaml"), volatileLru);
    Path safe = yaml(dir.resolve("safe.yaml"), noEviction);

    try (LockProvider provider = LockProviders.create("redis://" + evicting)) {
      assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("redis://" + evicting)
          .hasMessageContaining("maxmemory-policy 'volatile-lru'");
    }
    try (LockProvider provider =
        LockProviders.create("redis:///?config=" + evicting + "&allow-eviction=true")) {
      assertLocks(provider);
    }
    try (LockProvider provider = LockProviders.create("redis://" + safe)) {
      assertLocks(provider);
    }
  }

  @Test
  void aSuppliedClientIsCheckedAndLeftOpenWhenRefused() {
    RedissonClient evicting = client(volatileLru);
    RedissonClient safe = client(noEviction);
    try {
      try (RedisLockProvider provider =
          RedisLockProvider.create(evicting, RedisLockOptions.defaults())) {
        assertThatThrownBy(() -> provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))))
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("application RedissonClient")
            .hasMessageContaining("127.0.0.1:" + volatileLru.port())
            .hasMessageContaining("maxmemory-policy 'volatile-lru'")
            .hasMessageContaining("withAllowEviction(true)");
      }
      assertThat(evicting.isShutdown()).as("the application's client shut down").isFalse();
      try (RedisLockProvider provider =
          RedisLockProvider.create(evicting, RedisLockOptions.defaults().withAllowEviction(true))) {
        assertLocks(provider);
      }
      try (RedisLockProvider provider =
          RedisLockProvider.create(safe, RedisLockOptions.defaults())) {
        assertLocks(provider);
      }
    } finally {
      evicting.shutdown();
      safe.shutdown();
    }
  }

  @Test
  void aServerThatRefusesConfigIsUsedWithAWarning() {
    // As managed Redis services do: CONFIG renamed away, so the policy cannot be read.
    try (RedisServerProcess managed =
            TestRedis.startDedicated(
                "--maxmemory-policy", "allkeys-lru", "--rename-command", "CONFIG", "");
        ConsoleLog log = new ConsoleLog();
        LockProvider provider = LockProviders.create(managed.url())) {
      assertLocks(provider);
      assertThat(log.lines("WARN", "could not check the maxmemory-policy of"))
          .isNotEmpty()
          .allSatisfy(
              line ->
                  assertThat(line)
                      .contains("CONFIG GET refused")
                      .contains("make sure it is noeviction"));
    }
  }

  @Test
  void aServerUnreachableAtFirstContactIsCheckedBeforeTheFirstGrant() throws Exception {
    try (RedisServerProcess late = TestRedis.startDedicated("--maxmemory-policy", "allkeys-lfu")) {
      late.stop();
      Config config = new Config().setThreads(2).setNettyThreads(4).setLazyInitialization(true);
      config
          .useSingleServer()
          .setAddress(late.url())
          .setTimeout(500)
          .setConnectTimeout(500)
          .setRetryAttempts(0)
          .setConnectionMinimumIdleSize(1)
          .setSubscriptionConnectionMinimumIdleSize(1);
      RedissonClient client = Redisson.create(config);
      try (RedisLockProvider provider =
          RedisLockProvider.create(client, RedisLockOptions.defaults())) {
        String id = lockId();
        assertThatThrownBy(() -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("maxmemory-policy")
            .hasMessageContaining("127.0.0.1:" + late.port() + " unreachable: connection refused");

        late.restart();
        await()
            .atMost(Duration.ofSeconds(20))
            .ignoreException(LockProviderException.class)
            .untilAsserted(
                () ->
                    assertThatThrownBy(
                            () -> provider.tryAcquire(request(id, Duration.ofSeconds(30))))
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("maxmemory-policy 'allkeys-lfu'"));
        assertThat(late.call("EXISTS", LockKeys.of("locksmith", id).lock()))
            .as("lock keys written")
            .isEqualTo(0L);

        late.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        assertLocks(provider);
      } finally {
        client.shutdown();
      }
    }
  }

  private static Path yaml(Path file, RedisServerProcess server) throws Exception {
    return Files.writeString(
        file,
        """
        threads: 2
        nettyThreads: 4
        singleServerConfig:
          address: "redis://127.0.0.1:%d"
          connectionMinimumIdleSize: 1
          subscriptionConnectionMinimumIdleSize: 1
        """
            .formatted(server.port()));
  }

  private static void assertLocks(LockProvider provider) {
    String id = lockId();
    LeaseGrant lease = provider.tryAcquire(request(id, Duration.ofSeconds(30))).orElseThrow();
    assertThat(provider.tryAcquire(request(id, Duration.ofSeconds(30)))).isEmpty();
    assertThat(provider.release(lease)).isTrue();
  }

  private static RedissonClient client(RedisServerProcess server) {
    Config config = new Config().setThreads(2).setNettyThreads(4);
    config
        .useSingleServer()
        .setAddress(server.url())
        .setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    return Redisson.create(config);
  }
}
