package dev.locksmith.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import dev.locksmith.spring.boot.LocksmithFailureAnalyzer;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.redis.TestRedis;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import dev.locksmith.zookeeper.ZkLockProvider;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Where the ZooKeeper provider comes from: {@code locksmith.url=zk://...} through the provider URL
 * factory, or the application's {@code CuratorFramework} bean; the URL and a {@code RedissonClient}
 * bean win over it, {@code locksmith.curator.enabled=false} turns the bean's provider off, and a
 * bad base path stops the start naming the property.
 */
class ZkUrlBootTest {
  @RegisterExtension
  static final TestResource<TestingServer> server = new TestResource<>(TestZooKeeper::start);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class));

  @Test
  void theUrlMakesAZooKeeperProviderThatTakesLocksOnTheServer() {
    String url = "zk://" + server.get().getConnectString() + "/by-url";
    runner
        .withPropertyValues("locksmith.url=" + url)
        .run(
            context -> {
              Locksmith locksmith = context.getBean(Locksmith.class);
              LockProvider provider = locksmith.providers().get("");
              assertThat(provider).isInstanceOf(ZkLockProvider.class);
              assertThat(provider.description()).isEqualTo(url);
              try (Lease lease = locksmith.tryAcquire(LockOptions.named("url-job")).orElseThrow()) {
                assertThat(
                        CompletableFuture.supplyAsync(
                                () ->
                                    locksmith.tryAcquire(LockOptions.named("url-job")).isPresent())
                            .get(10, TimeUnit.SECONDS))
                    .as("another thread is refused while the lease is held")
                    .isFalse();
                assertThat(provider.status("url-job").currentHolder())
                    .hasValueSatisfying(
                        holder ->
                            assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken()));
              }
              assertThat(provider.status("url-job").currentHolder()).isEmpty();
            });
  }

  @Test
  void theUrlWinsOverACuratorFrameworkBean() {
    try (CuratorFramework client = client()) {
      runner
          .withBean(CuratorFramework.class, () -> client)
          .withPropertyValues("locksmith.url=zk://" + server.get().getConnectString() + "/url-wins")
          .run(
              context -> {
                assertThat(context).doesNotHaveBean(ZkLockProvider.class);
                ZkLockProvider provider =
                    (ZkLockProvider) context.getBean(Locksmith.class).providers().get("");
                assertThat(provider.client()).isNotSameAs(client);
              });
    }
  }

  @Test
  void aRedissonClientBeanWinsOverACuratorFrameworkBean() {
    RedissonClient redisson = redisson();
    try (CuratorFramework client = client()) {
      runner
          .withBean(CuratorFramework.class, () -> client)
          .withBean(RedissonClient.class, () -> redisson)
          .run(
              context -> {
                assertThat(context).doesNotHaveBean(ZkLockProvider.class);
                assertThat(context.getBean(Locksmith.class).providers().get(""))
                    .isInstanceOf(RedisLockProvider.class);
              });
    } finally {
      redisson.shutdown();
    }
  }

  /**
   * {@code locksmith.redisson.enabled} and {@code locksmith.curator.enabled} are bound as the
   * booleans they are, like {@code locksmith.enabled}: {@code on} keeps a client's provider, {@code
   * no} turns it off, and a typo stops the start naming the property instead of quietly leaving the
   * engine without the provider the application meant.
   */
  @Test
  void theClientSwitchesTakeTheBooleanWordsSpringBindsAndRefuseAnyOther() {
    RedissonClient redisson = redisson();
    try (CuratorFramework client = client()) {
      ApplicationContextRunner both =
          runner
              .withBean(CuratorFramework.class, () -> client)
              .withBean(RedissonClient.class, () -> redisson);
      both.withPropertyValues("locksmith.redisson.enabled=on", "locksmith.curator.enabled=yes")
          .run(
              context ->
                  assertThat(context.getBean(Locksmith.class).providers().get(""))
                      .isInstanceOf(RedisLockProvider.class));
      both.withPropertyValues("locksmith.redisson.enabled=no", "locksmith.curator.enabled=on")
          .run(
              context ->
                  assertThat(context.getBean(Locksmith.class).providers().get(""))
                      .isInstanceOf(ZkLockProvider.class));
      for (String property :
          new String[] {"locksmith.redisson.enabled", "locksmith.curator.enabled"}) {
        both.withPropertyValues(property + "=flase")
            .run(
                context ->
                    assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(property)
                        .hasStackTraceContaining("flase"));
      }
    } finally {
      redisson.shutdown();
    }
  }

  @Test
  void aCuratorFrameworkBeanIsNotUsedWhenTurnedOff() {
    assertTheCuratorFrameworkBeanIsNotUsed(
        runner.withPropertyValues("locksmith.curator.enabled=false"), ZkLockProvider.class);
  }

  @Test
  void aCuratorFrameworkBeanIsNotUsedWithoutLockingZookeeper() {
    assertTheCuratorFrameworkBeanIsNotUsed(
        runner.withClassLoader(new FilteredClassLoader(ZkLockProvider.class)), LockProvider.class);
  }

  /** A client of the shared test Redis, which the caller shuts down. */
  private static RedissonClient redisson() {
    Config config = new Config();
    config.useSingleServer().setAddress(TestRedis.sharedUrl());
    return Redisson.create(config);
  }

  /**
   * Given a started {@code CuratorFramework} bean, {@code configured} starts with no bean of {@code
   * absent} and an engine without providers.
   */
  private static void assertTheCuratorFrameworkBeanIsNotUsed(
      ApplicationContextRunner configured, Class<?> absent) {
    try (CuratorFramework client = client()) {
      configured
          .withBean(CuratorFramework.class, () -> client)
          .run(
              context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(absent);
                assertThat(context.getBean(Locksmith.class).providers()).isEmpty();
              });
    }
  }

  @Test
  void anInvalidBasePathStopsTheStartNamingTheProperty() {
    try (CuratorFramework client = client()) {
      runner
          .withBean(CuratorFramework.class, () -> client)
          .withPropertyValues("locksmith.curator.base-path=no-slash")
          .run(
              context -> {
                FailureAnalysis analysis =
                    new LocksmithFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis).isNotNull();
                assertThat(analysis.getDescription())
                    .contains("locksmith.curator.base-path")
                    .contains("basePath 'no-slash' is invalid");
              });
    }
  }

  private static CuratorFramework client() {
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(server.get().getConnectString(), new RetryOneTime(100));
    client.start();
    return client;
  }
}
