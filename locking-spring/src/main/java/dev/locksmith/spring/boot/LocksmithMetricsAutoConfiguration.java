package dev.locksmith.spring.boot;

import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for lock events when a {@link MeterRegistry} is present. The listener registers
 * every meter at zero for each provider of the engine it is given to as that engine is built, so
 * that they are reported before their first event; an engine without it gets none.
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
}
