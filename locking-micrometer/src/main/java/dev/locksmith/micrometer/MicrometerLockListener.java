package dev.locksmith.micrometer;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
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
 *   <li>{@value #ACTIVE} (gauge): leases held now by this process; a lease leaves it when it is
 *       lost, not when its holder closes it later
 * </ul>
 *
 * <p>A meter usually appears with its first event, so a counter such as {@value #LOST} would be
 * missing, not zero, until the first lease is lost, and an alert rule could not tell "none" from
 * "not reported". {@link #registerProviders} registers every meter the listener can produce, at
 * zero, for each provider, under the lock name {@value #NO_NAME}; the listener calls it itself for
 * each engine it is given to, as the engine is built ({@link #attached}). Those series only ever
 * count events of a lock really named {@value #NO_NAME}, so sums over names stay right.
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

  /** The lock name under which {@link #registerProviders} registers meters at zero. */
  public static final String NO_NAME = "none";

  private static final List<String> OUTCOMES = List.of("acquired", "busy", "timeout");

  /**
   * The count behind each registry's gauge, shared by every listener on that registry: a registry
   * has one {@value #ACTIVE} gauge, and a second listener registering it gets the first one's, so a
   * count of its own would never be reported.
   */
  private static final Map<MeterRegistry, AtomicLong> ACTIVE_BY_REGISTRY =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final MeterRegistry registry;
  private final AtomicLong active;
  // Leases told lost and not yet released: off the gauge already, as nothing holds them.
  private final Set<LockEvent> lostUnreleased = ConcurrentHashMap.newKeySet();
  private volatile boolean gaugeRegistered;

  /**
   * Creates the listener, joining the active-leases count already kept for {@code registry}:
   * several engines recording into one registry add up in it. Its gauge is registered with the
   * meters at zero ({@link #registerProviders}), so a registry that no engine records into shows
   * none.
   *
   * @param registry where the meters go
   */
  public MicrometerLockListener(MeterRegistry registry) {
    this.registry = registry;
    this.active = ACTIVE_BY_REGISTRY.computeIfAbsent(registry, r -> new AtomicLong());
  }

  /**
   * Registers every meter at zero for each distinct provider of an engine this listener was given
   * to, named as its health names it ({@code default} for the default provider); see {@link
   * #registerProviders}. A provider reachable under a second name (a framework's provider bean is
   * the default and also has its bean name) gets its series under that name with the first event
   * reported so.
   */
  @Override
  public void attached(Locksmith engine) {
    registerProviders(engine.health().stream().map(ProviderHealth::name).toList());
  }

  /**
   * Registers the active-leases gauge and, at zero, every timer and counter this listener can
   * produce for each provider (its configured name, {@code default} for the default provider),
   * tagged with the lock name {@value #NO_NAME}, so that they are reported before their first
   * event.
   *
   * @param providers the providers' names as lock events give them
   */
  public void registerProviders(Collection<String> providers) {
    registerActiveGauge();
    for (String provider : providers) {
      LockEvent event = new LockEvent(NO_NAME, NO_NAME, provider, 0);
      OUTCOMES.forEach(outcome -> acquireTimer(event, outcome));
      heldTimer(event);
      lostCounter(event);
      errorCounter(event);
    }
  }

  private void registerActiveGauge() {
    // Once per registry (the count is the registry's, shared by its listeners): Micrometer logs a
    // second registration of a gauge as a mistake.
    synchronized (active) {
      if (registry.find(ACTIVE).gauge() == null) {
        Gauge.builder(ACTIVE, active, AtomicLong::get)
            .description("Leases held now by this process")
            .strongReference(true)
            .register(registry);
      }
    }
    gaugeRegistered = true;
  }

  @Override
  public void acquired(LockEvent event, Duration waited) {
    if (!gaugeRegistered) {
      registerActiveGauge(); // told of events without attached(): a wrapping listener, say
    }
    active.incrementAndGet();
    acquireTimer(event, "acquired").record(waited);
  }

  @Override
  public void busy(LockEvent event, Duration waited) {
    acquireTimer(event, "busy").record(waited);
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    acquireTimer(event, "timeout").record(waited);
  }

  @Override
  public void released(LockEvent event, Duration held) {
    // Recorded first: a reading of the gauge at zero finds every hold time of those leases there.
    heldTimer(event).record(held);
    if (!lostUnreleased.remove(event)) {
      active.decrementAndGet();
    }
  }

  /** Counts the loss and takes the lease off {@value #ACTIVE} now, not when it is closed. */
  @Override
  public void lost(LockEvent event, String reason) {
    lostCounter(event).increment();
    if (lostUnreleased.add(event)) {
      active.decrementAndGet();
    }
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    errorCounter(event).increment();
  }

  private Timer heldTimer(LockEvent event) {
    return Timer.builder(HELD)
        .description("How long leases were held")
        .tags(tags(event))
        .register(registry);
  }

  private Counter lostCounter(LockEvent event) {
    return Counter.builder(LOST)
        .description("Leases lost while held")
        .tags(tags(event))
        .register(registry);
  }

  private Counter errorCounter(LockEvent event) {
    return Counter.builder(ERRORS)
        .description("Provider failures while acquiring, renewing or releasing")
        .tags(tags(event))
        .register(registry);
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

  /**
   * Allows being told on a provider's I/O thread: this listener only counts and times into the
   * registry's in-memory meters, so a release answered later needs no hand-over to an engine
   * thread.
   *
   * @return {@code true}
   */
  @Override
  public boolean allowsIoThreads() {
    return true;
  }
}
