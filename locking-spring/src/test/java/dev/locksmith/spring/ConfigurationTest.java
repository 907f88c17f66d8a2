package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import dev.locksmith.spring.boot.LocksmithDisabledAutoConfiguration;
import dev.locksmith.spring.boot.LocksmithHealthAutoConfiguration;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** Where providers come from, modes, order, and {@code @EnableDistributedLocking} without Boot. */
class ConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withBean("job", Job.class);

  @Test
  void providersFromUrls() {
    runner
        .withPropertyValues(
            "locksmith.url=mem:config-default", "locksmith.providers.other.url=mem:config-other")
        .run(
            context -> {
              Locksmith locksmith = context.getBean(Locksmith.class);
              assertThat(locksmith.providers()).containsOnlyKeys("", "other");
              assertThat(context.getBean(Job.class).lockId()).isEqualTo("job");
            });
  }

  @Test
  void aLockProviderBeanWinsOverTheUrl() {
    LockProvider mine = LockProviders.create("mem:config-bean");
    runner
        .withPropertyValues("locksmith.url=mem:config-url")
        .withBean("mine", LockProvider.class, () -> mine)
        .run(
            context -> {
              Map<String, LockProvider> providers = context.getBean(Locksmith.class).providers();
              assertThat(providers.get("")).isSameAs(mine);
              assertThat(providers.get("mine")).isSameAs(mine);
            });
  }

  @Test
  void thePrimaryOfSeveralProviderBeansIsTheDefault() {
    runner
        .withUserConfiguration(TwoProviders.class)
        .run(
            context -> {
              Map<String, LockProvider> providers = context.getBean(Locksmith.class).providers();
              assertThat(providers.get("")).isSameAs(context.getBean("main"));
              assertThat(providers).containsKeys("main", "spare");
            });
  }

  @Test
  void anApplicationLocksmithIsKept() {
    Locksmith own =
        Locksmith.builder().defaultProvider(LockProviders.create("mem:config-own")).build();
    runner
        .withBean(Locksmith.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Locksmith.class);
              assertThat(context.getBean(Locksmith.class)).isSameAs(own);
              assertThat(context.getBean(Job.class).lockId()).isEqualTo("job");
            });
  }

  @Test
  void orderIsConfigurable() {
    runner
        .withPropertyValues("locksmith.url=mem:config-order", "locksmith.order=123")
        .run(
            context ->
                assertThat(
                        ((Ordered) context.getBean(LockingInfrastructure.ADVISOR_BEAN_NAME))
                            .getOrder())
                    .isEqualTo(123));
  }

  @Test
  void defaultOrderRunsOutsideTransactions() {
    runner
        .withPropertyValues("locksmith.url=mem:config-order")
        .run(
            context ->
                assertThat(
                        ((Ordered) context.getBean(LockingInfrastructure.ADVISOR_BEAN_NAME))
                            .getOrder())
                    .isLessThan(Ordered.LOWEST_PRECEDENCE));
  }

  @Test
  void aspectjModeAddsNoProxyAndNoAdvisor() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
        .withBean("plain", Plain.class)
        .withPropertyValues("locksmith.url=mem:config-aspectj", "locksmith.mode=aspectj")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.containsBean(LockingInfrastructure.ADVISOR_BEAN_NAME)).isFalse();
              assertThat(context.getBeansOfType(Advisor.class)).isEmpty();
              assertThat(context.containsBean(LockingInfrastructure.ASPECTJ_BINDER_BEAN_NAME))
                  .isTrue();
              assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse();
            });
  }

  @Test
  void aspectjModeRefusesABeanClassTheWeaverMissed() {
    // Even without the compile-time index of locked methods, which would name it too.
    runner
        .withPropertyValues("locksmith.url=mem:config-unwoven", "locksmith.mode=aspectj")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining("Bean 'job' (" + Job.class.getName() + ")")
                    .hasMessageContaining(
                        "was not woven with dev.locksmith.aspectj.DistributedLockAspect"));
  }

  @Test
  void disabled() {
    runner
        .withPropertyValues("locksmith.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(Locksmith.class));
    runner
        .withPropertyValues("locksmith.enabled=off")
        .run(context -> assertThat(context).doesNotHaveBean(Locksmith.class));
  }

  @Test
  void aBeansDestroyMethodCanStillMakeLockedCalls() {
    Flusher.lockIdAtDestroy = null;
    runner
        .withBean("flusher", Flusher.class)
        .withPropertyValues("locksmith.url=mem:config-destroy-order")
        .run(context -> assertThat(context.getBean(Flusher.class)).isNotNull());
    assertThat(Flusher.lockIdAtDestroy)
        .as("locked at destroy, the engine still open")
        .isEqualTo("job");
  }

  /** Flushes through a locked method when the context closes, as a batch writer would. */
  public static class Flusher implements DisposableBean {
    static volatile @Nullable String lockIdAtDestroy;
    private final Job job;

    public Flusher(Job job) {
      this.job = job;
    }

    @Override
    public void destroy() {
      lockIdAtDestroy = job.lockId();
    }
  }

  @Test
  void enabledTakesTheBooleanWordsSpringBindsAndRefusesAnyOther() {
    // Bound as the Boolean the property is: on, yes and 1 lock; a typo must not turn locking off.
    for (String value : new String[] {"true", "TRUE", "on", "yes", "1"}) {
      runner
          .withConfiguration(AutoConfigurations.of(LocksmithDisabledAutoConfiguration.class))
          .withPropertyValues("locksmith.enabled=" + value, "locksmith.url=mem:config-on")
          .run(
              context ->
                  assertThat(context.getBean(Job.class).lockId()).as(value).isEqualTo("job"));
    }
    runner
        .withConfiguration(AutoConfigurations.of(LocksmithDisabledAutoConfiguration.class))
        .withPropertyValues("locksmith.enabled=flase", "locksmith.url=mem:config-typo")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("locksmith.enabled")
                    .hasStackTraceContaining("flase"));
  }

  @Test
  void healthFollowsTheEngineDownWhenTheServerIsGoneAndUpWhenItIsBack() throws Exception {
    LockServer server = LockServer.builder().port(LoopbackPorts.free()).build();
    int port = server.start();
    runner
        .withConfiguration(AutoConfigurations.of(LocksmithHealthAutoConfiguration.class))
        .withPropertyValues("locksmith.url=tcp://127.0.0.1:" + port)
        .run(
            context -> {
              CompositeHealthContributor health =
                  context.getBean("locksmithHealthContributor", CompositeHealthContributor.class);
              HealthIndicator indicator = (HealthIndicator) health.getContributor("default");
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> status(indicator), Status.UP::equals);
              server.close();
              assertThatThrownBy(() -> context.getBean(Job.class).lockId())
                  .as("a locked call that fails fast finds the server gone")
                  .isInstanceOf(LockProviderException.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> status(indicator), Status.DOWN::equals);
              assertThat(indicator.health().getDetails())
                  .containsKey("problem")
                  .containsEntry("provider", "tcp://127.0.0.1:" + port);
              try (LockServer again = LockServer.builder().port(port).build()) {
                again.start();
                await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> status(indicator), Status.UP::equals);
                assertThat(context.getBean(Job.class).lockId()).isEqualTo("job");
              }
            });
  }

  private static Status status(HealthIndicator indicator) {
    return indicator.health().getStatus();
  }

  @Test
  void shutdownTimeoutBoundsTheWaitForARunningCall() {
    runner
        .withBean("slow", Slow.class)
        .withPropertyValues("locksmith.url=mem:config-shutdown", "locksmith.shutdown-timeout=300ms")
        .run(
            context -> {
              Slow slow = context.getBean(Slow.class);
              CountDownLatch entered = new CountDownLatch(1);
              CountDownLatch finish = new CountDownLatch(1);
              Thread caller = new Thread(() -> slow.hold(entered, finish), "slow-caller");
              caller.start();
              try {
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                long start = System.nanoTime();
                context.close();
                Duration closing = Duration.ofNanos(System.nanoTime() - start);
                assertThat(closing)
                    .as("close waited the configured 300ms, not the default 10s")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300))
                    .isLessThan(Duration.ofSeconds(5));
              } finally {
                finish.countDown();
                caller.join(10_000);
              }
            });
  }

  @Test
  void providerBeansOutliveTheEngineAtClose() {
    runner
        .withBean("mine", LockProvider.class, () -> LockProviders.create("mem:config-order"))
        .run(
            context -> {
              context.getBean(Locksmith.class);
              assertThat(context.getBeanFactory().getDependenciesForBean("locksmith"))
                  .as("beans the engine depends on, so closed after it")
                  .contains("mine");
            });
  }

  @Test
  void enableDistributedLockingWithoutBoot() {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context
          .getEnvironment()
          .getPropertySources()
          .addFirst(
              new MapPropertySource(
                  "test",
                  Map.of(
                      "locksmith.url",
                      "mem:config-plain",
                      "locksmith.providers.extra.url",
                      "mem:config-extra")));
      context.register(PlainConfig.class);
      context.registerBean("job", Job.class);
      context.refresh();
      assertThat(context.getBean(Job.class).lockId()).isEqualTo("job");
      assertThat(context.getBean(Locksmith.class).providers()).containsOnlyKeys("", "extra");
      assertThat(context.getBeansOfType(Locksmith.class)).hasSize(1);
    }
  }

  @Test
  void withoutBootTheShutdownTimeoutBoundsTheWaitForARunningCall() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Thread caller = null;
    try (AnnotationConfigApplicationContext context =
        plainContext(
            Map.of(
                "locksmith.url", "mem:config-plain-shutdown",
                "locksmith.shutdown-timeout", "300ms",
                "locksmith.provider-probe-interval", "2s"))) {
      context.registerBean("slow", Slow.class);
      context.refresh();
      Slow slow = context.getBean(Slow.class);
      caller = new Thread(() -> slow.hold(entered, finish), "slow-caller");
      caller.start();
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      long start = System.nanoTime();
      context.close();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("close waited the configured 300ms, not the default 10s")
          .isGreaterThanOrEqualTo(Duration.ofMillis(300))
          .isLessThan(Duration.ofSeconds(5));
    } finally {
      finish.countDown();
      if (caller != null) {
        caller.join(10_000);
      }
    }
  }

  @Test
  void withoutBootAWrongEngineDurationStopsTheContextNamingTheProperty() {
    for (String property : new String[] {"shutdown-timeout", "provider-probe-interval"}) {
      try (AnnotationConfigApplicationContext context =
          plainContext(
              Map.of(
                  "locksmith.url",
                  "mem:config-plain-bad",
                  "locksmith." + property,
                  "ten seconds"))) {
        assertThatThrownBy(context::refresh)
            .hasStackTraceContaining(
                LockConfigurationException.class.getName()
                    + ": Property locksmith."
                    + property
                    + ": 'ten seconds' is not a duration");
      }
    }
  }

  /** A context without Boot, with {@code @EnableDistributedLocking} and these properties. */
  private static AnnotationConfigApplicationContext plainContext(Map<String, Object> properties) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("test", properties));
    context.register(PlainConfig.class);
    return context;
  }

  @Test
  void withoutBootTheLocksmithEnvironmentVariablesNameProvidersToo() {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context
          .getEnvironment()
          .getPropertySources()
          .addFirst(
              new SystemEnvironmentPropertySource(
                  "environment variables",
                  Map.of(
                      "LOCKSMITH_URL",
                      "mem:config-env",
                      "LOCKSMITH_PROVIDERS_REPORTS_URL",
                      "mem:config-env-reports")));
      context.register(PlainConfig.class);
      context.registerBean("job", Job.class);
      context.refresh();
      assertThat(context.getBean(Locksmith.class).providers()).containsOnlyKeys("", "reports");
    }
  }

  @Test
  void enableDistributedLockingInBootRegistersOneAdvisor() {
    runner
        .withUserConfiguration(PlainConfig.class)
        .withPropertyValues("locksmith.url=mem:config-both")
        .run(
            context -> {
              assertThat(context).hasSingleBean(Locksmith.class);
              assertThat(context.getBeansOfType(Advisor.class)).hasSize(1);
              assertThat(context.getBean(Job.class).lockId()).isEqualTo("job");
            });
  }

  @Configuration(proxyBeanMethods = false)
  @EnableDistributedLocking(proxyTargetClass = true)
  static class PlainConfig {}

  @Configuration(proxyBeanMethods = false)
  static class TwoProviders {
    @Bean
    @Primary
    LockProvider main() {
      return LockProviders.create("mem:config-main");
    }

    @Bean
    LockProvider spare() {
      return LockProviders.create("mem:config-spare");
    }
  }

  /** A locked call that runs until told to finish. */
  public static class Slow {
    /** Holds the lock until {@code finish} counts down. */
    @DistributedLock(name = "slow")
    public void hold(CountDownLatch entered, CountDownLatch finish) {
      entered.countDown();
      try {
        finish.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A bean without locked methods. */
  public static class Plain {}

  /** A locked bean. */
  public static class Job {
    // FAIL, not the default WAIT: a WAIT waits through an outage until its timeout.
    @DistributedLock(name = "job", onBusy = OnBusy.FAIL)
    public String lockId() {
      return Locks.currentIfAny().map(lease -> lease.lockId()).orElse("none");
    }
  }
}
