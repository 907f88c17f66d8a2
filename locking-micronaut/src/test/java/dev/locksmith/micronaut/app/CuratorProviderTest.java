package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.redis.TestRedis;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import dev.locksmith.zookeeper.ZkLockProvider;
import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthResult;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ZooKeeper in a real Micronaut context on a curator-test server: the application's {@link
 * CuratorFramework} bean as the default provider (meters, health that follows the server, the
 * engine destroyed before the client), {@code locksmith.url: zk://...} through the provider URL
 * factory, and a bad base path stopping the start.
 */
class CuratorProviderTest {
  @RegisterExtension
  final TestResource<TestingServer> server = new TestResource<>(TestZooKeeper::start);

  private ApplicationContext start(Map<String, Object> properties, String... environments) {
    Map<String, Object> all = new java.util.HashMap<>(properties);
    all.put("test.zk", server.get().getConnectString());
    return ApplicationContext.run(all, environments);
  }

  @Test
  void theApplicationsClientIsTheDefaultProviderWithMetersAndHealth() throws Exception {
    try (ApplicationContext context =
        start(Map.of("locksmith.curator.base-path", "/mn"), "curator")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      LockProvider provider = locksmith.providers().get("");
      assertThat(provider)
          .isInstanceOf(ZkLockProvider.class)
          .isSameAs(locksmith.providers().get("curator"));
      CuratorFramework client = context.getBean(CuratorFramework.class);
      assertThat(((ZkLockProvider) provider).client()).isSameAs(client);
      assertThat(provider.description())
          .isEqualTo("zk://" + server.get().getConnectString() + "/mn");

      DayJobChecks.holdsEachDayAlone(
          context,
          "zk-job",
          context.getBean(DayJobs.class)::onZooKeeper,
          () ->
              assertThat(client.getChildren().forPath("/mn/locks/zk-job:mon"))
                  .as("the holder's lease node")
                  .hasSize(1));
      HealthResult health = HealthChecks.locksmith(context);
      assertThat(health.getStatus()).isEqualTo(HealthStatus.UP);
      assertThat(String.valueOf(HealthChecks.provider(health, "default")))
          .contains("zk://" + server.get().getConnectString() + "/mn");
    }
  }

  @Test
  void healthIsDownWhileTheServerIsStoppedAndUpWhenItIsBack() throws Exception {
    try (ApplicationContext context = start(Map.of(), "curator")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      locksmith.tryAcquire(LockOptions.named("health")).orElseThrow().close();
      assertThat(HealthChecks.locksmith(context).getStatus()).isEqualTo(HealthStatus.UP);

      server.get().stop();
      assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("health")))
          .isInstanceOf(LockProviderException.class);
      HealthChecks.assertDefaultDown(context);

      server.get().restart();
      HealthChecks.awaitUp(context);
      locksmith.tryAcquire(LockOptions.named("health")).orElseThrow().close();
    }
  }

  @Test
  void theEngineIsDestroyedBeforeTheProviderAndTheApplicationsClient() {
    ApplicationContext context = start(Map.of(), "curator", "destruction-order");
    DestructionOrder order = context.getBean(DestructionOrder.class);
    CuratorFramework client = context.getBean(CuratorFramework.class);

    context.close();

    assertThat(order.destroyed).containsExactly("Locksmith", "LockProvider", "CuratorFramework");
    assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STOPPED);
  }

  @Test
  void theUrlMakesAZooKeeperProviderThatTakesLocksOnTheServer() throws Exception {
    String url = "zk://" + server.get().getConnectString() + "/mn-url";
    try (ApplicationContext context = start(Map.of("locksmith.url", url), "none")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      LockProvider provider = locksmith.providers().get("");
      assertThat(provider).isInstanceOf(ZkLockProvider.class);
      assertThat(provider.description()).isEqualTo(url);
      assertThat(locksmith.providers()).doesNotContainKey("curator");
      try (Lease lease = locksmith.tryAcquire(LockOptions.named("url-job")).orElseThrow()) {
        assertThat(
                CompletableFuture.supplyAsync(
                        () -> locksmith.tryAcquire(LockOptions.named("url-job")).isPresent())
                    .get(10, TimeUnit.SECONDS))
            .as("another thread is refused while the lease is held")
            .isFalse();
        assertThat(provider.status("url-job").currentHolder())
            .hasValueSatisfying(
                holder -> assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken()));
      }
      assertThat(provider.status("url-job").currentHolder()).isEmpty();
    }
  }

  @Test
  void theUrlWinsOverTheApplicationsClient() {
    String url = "zk://" + server.get().getConnectString() + "/mn-wins";
    try (ApplicationContext context = start(Map.of("locksmith.url", url), "curator")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      assertThat(locksmith.providers().get("").description()).isEqualTo(url);
      assertThat(locksmith.providers().get("curator")).isNotSameAs(locksmith.providers().get(""));
    }
  }

  @Test
  void anApplicationsRedissonClientComesBeforeItsCuratorFramework() {
    try (ApplicationContext context =
        start(Map.of("app.redis.url", TestRedis.sharedUrl()), "curator", "app-redisson")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      assertThat(locksmith.providers()).containsOnlyKeys("", "redisson", "curator");
      assertThat(locksmith.providers().get("")).isSameAs(locksmith.providers().get("redisson"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "OFF"})
  void theApplicationsClientIsNotUsedWhenTurnedOff(String off) {
    // The job of the "curator" environment needs a default provider: a URL gives it here.
    try (ApplicationContext context =
        start(
            Map.of("locksmith.curator.enabled", off, "locksmith.url", "mem:curator-off"),
            "curator")) {
      assertThat(context.getBean(Locksmith.class).providers()).containsOnlyKeys("");
      assertThat(context.getBeansOfType(ZkLockProvider.class)).isEmpty();
    }
  }

  @Test
  void anInvalidBasePathStopsTheStartNamingTheProperty() {
    assertThatThrownBy(() -> start(Map.of("locksmith.curator.base-path", "no-slash"), "curator"))
        .satisfies(
            failure -> {
              assertThat(ConfigurationFailures.cause(failure))
                  .hasMessageContaining("locksmith.curator.base-path")
                  .hasMessageContaining("basePath 'no-slash' is invalid");
            });
  }
}
