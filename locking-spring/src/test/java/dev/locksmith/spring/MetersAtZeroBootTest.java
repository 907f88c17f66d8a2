package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * In a Boot application with Actuator, the metrics endpoint answers for every lock meter, at zero,
 * before any lock was taken, lost or failed.
 */
class MetersAtZeroBootTest {

  @Test
  void everyCounterAndTimerIsReportedAtZeroPerProviderBeforeTheFirstEvent() {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.main.banner-mode=off",
                "locksmith.url=mem:zero-default",
                "locksmith.providers.extra.url=mem:zero-extra")
            .run()) {
      MetricsEndpoint metrics = new MetricsEndpoint(context.getBean(MeterRegistry.class));
      for (String provider : List.of("default", "extra")) {
        for (String meter :
            List.of(
                MicrometerLockListener.LOST,
                MicrometerLockListener.ERRORS,
                MicrometerLockListener.HELD,
                MicrometerLockListener.ACQUIRE)) {
          MetricsEndpoint.MetricDescriptor descriptor =
              metrics.metric(meter, List.of("provider:" + provider));
          assertThat(descriptor).as("%s for provider %s", meter, provider).isNotNull();
          assertThat(descriptor.getMeasurements())
              .filteredOn(sample -> sample.getStatistic() == Statistic.COUNT)
              .singleElement()
              .satisfies(sample -> assertThat(sample.getValue()).isZero());
        }
      }
      assertThat(metrics.metric(MicrometerLockListener.ACQUIRE, List.of("outcome:timeout")))
          .isNotNull();

      context.getBean(Job.class).work();
      assertThat(
              metrics
                  .metric(MicrometerLockListener.ACQUIRE, List.of("name:zero-job"))
                  .getMeasurements())
          .filteredOn(sample -> sample.getStatistic() == Statistic.COUNT)
          .singleElement()
          .satisfies(sample -> assertThat(sample.getValue()).isEqualTo(1.0));
    }
  }

  @Test
  void anEngineOfTheApplicationsOwnWithoutTheListenerGetsNoSeriesThatNeverMove() {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(OwnEngine.class)
            .web(WebApplicationType.NONE)
            .properties("spring.main.banner-mode=off")
            .run()) {
      MetricsEndpoint metrics = new MetricsEndpoint(context.getBean(MeterRegistry.class));
      assertThat(context.getBean(Locksmith.class).providers()).containsKey("");
      assertThat(metrics.metric(MicrometerLockListener.LOST, List.of("provider:default")))
          .as("a zero that would stay zero whatever its engine lost")
          .isNull();
      assertThat(metrics.metric(MicrometerLockListener.ACTIVE, List.of()))
          .as("a gauge of leases that no engine counts into")
          .isNull();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Job.class)
  static class App {}

  /** An application that builds its own engine, with no listener. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class OwnEngine {
    @Bean(destroyMethod = "close")
    Locksmith locksmith() {
      return Locksmith.builder().defaultProvider(MemoryLockProvider.isolated()).build();
    }
  }

  /** A locked method. */
  public static class Job {
    /** Locked. */
    @DistributedLock(name = "zero-job")
    public void work() {}
  }
}
