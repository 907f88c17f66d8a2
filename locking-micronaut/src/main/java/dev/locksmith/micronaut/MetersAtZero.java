package dev.locksmith.micronaut;

import dev.locksmith.core.Locksmith;
import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;

/**
 * Registers every lock meter at zero for each of the engine's providers as the engine is created,
 * so that a counter such as {@code locksmith.lost} reads 0 rather than missing before its first
 * event; under the same conditions as {@link MetricsFactory}.
 */
@Singleton
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(property = "locksmith.metrics.enabled", notEquals = "false")
@Requires(property = LocksmithFactory.ENABLED, notEquals = "false")
final class MetersAtZero implements BeanCreatedEventListener<Locksmith> {
  private final MicrometerLockListener meters;

  MetersAtZero(MicrometerLockListener meters) {
    this.meters = meters;
  }

  @Override
  public Locksmith onCreated(BeanCreatedEvent<Locksmith> event) {
    Locksmith engine = event.getBean();
    meters.registerProviders(engine);
    return engine;
  }
}
