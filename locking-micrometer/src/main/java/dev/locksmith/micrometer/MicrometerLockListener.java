package dev.locksmith.micrometer;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records lock events as Micrometer meters. Tags carry the lock's name and provider, never the
 * evaluated key, so their number stays bounded.
 *
 * <ul>
 *   <li>{@value #ACQUIRE} (timer; tags {@code name}, {@code provider}, {@code outcome}): time spent
 *       taking a lock; outcome {@code acquired}, {@code busy} or {@code timeout}
 *   <li>{@value #HELD} (timer; {@code name}, {@code provider}): how long leases were held
 *   <li>{@value #LOST} (counter; {@code name}, {@code provider}): leases lost while held
 *   <li>{@value #ERRORS} (counter; {@code name}, {@code provider}): provider failures
 *   <li>{@value #ACTIVE} (gauge): leases held now by this process
 * </ul>
 */
public final class MicrometerLockListener implements LockListener {
  /** Timer of lock acquisitions. */
  public static final String ACQUIRE = "locksmith.acquire";

  /** Timer of held leases. */
  public static final String HELD = "locksmith.held";

  /** Counter of lost leases. */
  public static final String LOST = "locksmith.lost";

  /** Counter of provider errors. */
  public static final String ERRORS = "locksmith.errors";

  /** Gauge of leases held now. */
  public static final String ACTIVE = "locksmith.leases.active";

  private final MeterRegistry registry;
  private final AtomicLong active = new AtomicLong();

  /** Creates the listener and registers the active-leases gauge. */
  public MicrometerLockListener(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder(ACTIVE, active, AtomicLong::get)
        .description("Leases held now by this process")
        .strongReference(true)
        .register(registry);
  }

  @Override
  public void acquired(LockEvent event, Duration waited) {
    active.incrementAndGet();
    acquireTimer(event, "acquired").record(waited);
  }

  @Override
  public void busy(LockEvent event) {
    acquireTimer(event, "busy").record(Duration.ZERO);
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    acquireTimer(event, "timeout").record(waited);
  }

  @Override
  public void released(LockEvent event, Duration held) {
    active.decrementAndGet();
    Timer.builder(HELD)
        .description("How long leases were held")
        .tags(tags(event))
        .register(registry)
        .record(held);
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

  private Timer acquireTimer(LockEvent event, String outcome) {
    return Timer.builder(ACQUIRE)
        .description("Time taken to acquire locks")
        .tags(tags(event).and("outcome", outcome))
        .register(registry);
  }

  private static Tags tags(LockEvent event) {
    return Tags.of("name", event.name(), "provider", event.provider());
  }
}
