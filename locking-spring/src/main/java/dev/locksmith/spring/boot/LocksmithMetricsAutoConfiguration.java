package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for lock events when a {@link MeterRegistry} is present, every one registered
 * at zero for each provider once the engine exists, so that they are reported before their first
 * event.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, MicrometerLockListener.class})
@ConditionalOnBean(MeterRegistry.class)
public final class LocksmithMetricsAutoConfiguration {

  /** Creates the auto-configuration. */
  public LocksmithMetricsAutoConfiguration() {}

  /** The listener that records the meters. */
  @Bean
  @ConditionalOnMissingBean
  static MicrometerLockListener micrometerLockListener(MeterRegistry registry) {
    return new MicrometerLockListener(registry);
  }

  /** Registers the meters at zero for each of the engine's providers once all singletons exist. */
  @Bean
  static SmartInitializingSingleton locksmithMetersAtZero(
      ObjectProvider<MicrometerLockListener> listener, ObjectProvider<Locksmith> locksmith) {
    return () -> listener.ifAvailable(meters -> locksmith.ifUnique(meters::registerProviders));
  }
}
