package dev.locksmith.micronaut;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Micrometer meters for every lock, the same as the Spring module's, tagged with the lock's name
 * and provider only (never the evaluated key, whose values are unbounded):
 *
 * <ul>
 *   <li>{@code locksmith.acquire} (timer): time to acquire, with {@code outcome} {@code acquired},
 *       {@code busy} or {@code timeout};
 *   <li>{@code locksmith.held} (timer): how long leases were held;
 *   <li>{@code locksmith.lost} (counter): leases lost while held;
 *   <li>{@code locksmith.errors} (counter): provider failures while acquiring, renewing or
 *       releasing;
 *   <li>{@code locksmith.leases.active} (gauge, no tags): leases held now by this process.
 * </ul>
 *
 * <p>Present when micronaut-micrometer provides a {@link MeterRegistry}; {@code
 * locksmith.metrics.enabled=false} turns it off.
 */
@Singleton
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(property = "locksmith.metrics.enabled", notEquals = "false")
final class MicrometerLockListener implements LockListener {
  static final String ACQUIRE = "locksmith.acquire";
  static final String HELD = "locksmith.held";
  static final String LOST = "locksmith.lost";
  static final String ERRORS = "locksmith.errors";
  static final String ACTIVE = "locksmith.leases.active";

  private final MeterRegistry registry;
  private final AtomicLong active = new AtomicLong();

  MicrometerLockListener(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder(ACTIVE, active, AtomicLong::get)
        .description("Leases held now by this process")
        .strongReference(true)
        .register(registry);
  }

  @Override
  public void acquired(LockEvent event, Duration waited) {
    active.incrementAndGet();
    acquire(event, "acquired", waited);
  }

  @Override
  public void busy(LockEvent event) {
    acquire(event, "busy", Duration.ZERO);
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    acquire(event, "timeout", waited);
  }

  @Override
  public void released(LockEvent event, Duration held) {
    Timer.builder(HELD)
        .description("How long leases were held")
        .tags(tags(event))
        .register(registry)
        .record(held);
    active.decrementAndGet();
  }

  @Override
  public void lost(LockEvent event, String reason) {
    Counter.builder(LOST)
        .description("Leases lost while held")
        .tags(tags(event))
        .register(registry)
        .increment();
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    Counter.builder(ERRORS)
        .description("Provider failures while acquiring, renewing or releasing")
        .tags(tags(event))
        .register(registry)
        .increment();
  }

  private void acquire(LockEvent event, String outcome, Duration took) {
    Timer.builder(ACQUIRE)
        .description("Time to acquire a lock, by outcome")
        .tags(tags(event).and("outcome", outcome))
        .register(registry)
        .record(took);
  }

  private static Tags tags(LockEvent event) {
    return Tags.of("name", event.name(), "provider", event.provider());
  }
}
