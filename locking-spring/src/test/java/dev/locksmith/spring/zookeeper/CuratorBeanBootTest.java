package dev.locksmith.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.micrometer.MicrometerLockListener;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import dev.locksmith.zookeeper.ZkLockProvider;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Boot application with its own {@code CuratorFramework} bean and no {@code locksmith.url}: the
 * default provider is locking-zookeeper over that client, locked methods exclude each other through
 * a real ZooKeeper server, meters count them, health follows the server, and the engine closes
 * before the client.
 */
class CuratorBeanBootTest {
  @RegisterExtension
  final TestResource<TestingServer> server = new TestResource<>(TestZooKeeper::start);

  @Test
  void theApplicationsClientIsTheDefaultProviderAndSecondCallersAreSkipped() throws Exception {
    try (ConfigurableApplicationContext context = start("locksmith.curator.base-path=/boot")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      LockProvider provider = locksmith.providers().get("");
      assertThat(provider).isInstanceOf(ZkLockProvider.class);
      assertThat(((ZkLockProvider) provider).client())
          .as("the application's client, not one of the provider's own")
          .isSameAs(context.getBean(CuratorFramework.class));
      assertThat(provider.description())
          .isEqualTo("zk://" + server.get().getConnectString() + "/boot");

      Jobs jobs = context.getBean(Jobs.class);
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<String> first =
          CompletableFuture.supplyAsync(() -> jobs.run(entered, release));
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      CuratorFramework client = context.getBean(CuratorFramework.class);
      assertThat(client.getChildren().forPath("/boot/locks/zk-job"))
          .as("the holder's lease node")
          .hasSize(1);
      assertThat(jobs.run(new CountDownLatch(1), new CountDownLatch(0))).isNull();

      release.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("zk-job");
      assertThat(provider.status("zk-job").currentHolder()).isEmpty();
      assertThat(jobs.run(new CountDownLatch(1), new CountDownLatch(0))).isEqualTo("zk-job");

      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(acquisitions(meters, "acquired")).isEqualTo(2);
      assertThat(acquisitions(meters, "busy")).isEqualTo(1);
      assertThat(meters.find(MicrometerLockListener.ERRORS).tag("provider", "default").counter())
          .as("the default provider's series at zero")
          .isNotNull();
      assertThat(meters.find(MicrometerLockListener.ERRORS).counters())
          .as("no series at zero under the provider bean's name, which no call reports")
          .allSatisfy(
              counter -> assertThat(counter.getId().getTag("provider")).isEqualTo("default"));
    }
  }

  @Test
  void healthIsDownWhileTheServerIsStoppedAndUpWhenItIsBack() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      HealthEndpoint health = context.getBean(HealthEndpoint.class);
      Locksmith locksmith = context.getBean(Locksmith.class);
      locksmith.tryAcquire(LockOptions.named("health")).orElseThrow().close();
      assertThat(status(health)).isEqualTo(Status.UP);

      server.get().stop();
      assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("health")))
          .isInstanceOf(LockProviderException.class);
      IndicatedHealthDescriptor down =
          (IndicatedHealthDescriptor) health.healthForPath("locksmith", "default");
      assertThat(down.getStatus()).isEqualTo(Status.DOWN);
      assertThat(down.getDetails().get("provider"))
          .asString()
          .startsWith("zk://" + server.get().getConnectString());
      assertThat(down.getDetails().get("problem")).asString().isNotBlank();

      server.get().restart();
      await("locksmith health UP after the server restarted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> status(health), Status.UP::equals);
      locksmith.tryAcquire(LockOptions.named("health")).orElseThrow().close();
    }
  }

  @Test
  void theEngineClosesBeforeTheProviderAndTheProviderBeforeTheApplicationsClient()
      throws Exception {
    ConfigurableApplicationContext context = start();
    assertThat(context.getBeanFactory().getDependenciesForBean("locksmith"))
        .contains("locksmithCuratorProvider");
    assertThat(context.getBeanFactory().getDependenciesForBean("locksmithCuratorProvider"))
        .contains("curator");
    Order order = context.getBean(Order.class);
    CuratorFramework client = context.getBean(CuratorFramework.class);

    context.close();

    assertThat(order.destroyed)
        .containsSubsequence("Locksmith", "LockProvider", "CuratorFramework started");
    assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STOPPED);
  }

  private static double acquisitions(MeterRegistry meters, String outcome) {
    return meters
        .get(MicrometerLockListener.ACQUIRE)
        .tag("name", "zk-job")
        .tag("outcome", outcome)
        .tag("provider", "default")
        .timer()
        .count();
  }

  private static Status status(HealthEndpoint health) {
    return health.healthForPath("locksmith", "default").getStatus();
  }

  private ConfigurableApplicationContext start(String... more) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "test.zk=" + server.get().getConnectString(),
            "management.endpoint.health.show-details=always",
            "spring.main.banner-mode=off")
        .properties(more)
        .run();
  }

  /** Records the order in which the context destroys the engine, providers and the client. */
  static final class Order implements DestructionAwareBeanPostProcessor {
    final List<String> destroyed = new CopyOnWriteArrayList<>();

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
      if (bean instanceof Locksmith) {
        destroyed.add("Locksmith");
      } else if (bean instanceof LockProvider) {
        destroyed.add("LockProvider");
      } else if (bean instanceof CuratorFramework client) {
        destroyed.add("CuratorFramework " + client.getState().name().toLowerCase());
      }
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean(initMethod = "start", destroyMethod = "close")
    CuratorFramework curator(Environment environment) {
      return CuratorFrameworkFactory.builder()
          .connectString(environment.getRequiredProperty("test.zk"))
          .sessionTimeoutMs(10_000)
          .connectionTimeoutMs(2_000)
          .retryPolicy(new RetryOneTime(100))
          .build();
    }

    @Bean
    static Order order() {
      return new Order();
    }

    @Bean
    Jobs jobs() {
      return new Jobs();
    }
  }
}
