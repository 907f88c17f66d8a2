package dev.locksmith.micronaut;

import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * Registers the meters of {@code locking-micrometer} (the same as the Spring module's) when
 * micronaut-micrometer provides a {@link MeterRegistry}; {@code locksmith.metrics.enabled=false}
 * turns them off.
 */
@Factory
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(condition = OnOffSwitch.MetricsEnabled.class)
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class MetricsFactory {

  @Singleton
  MicrometerLockListener micrometerLockListener(MeterRegistry registry) {
    return new MicrometerLockListener(registry);
  }
}
