package dev.locksmith.micronaut;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import io.micronaut.context.annotation.Requires;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Reports {@code locksmith} in the health endpoint from {@link Locksmith#health()}: {@code UP} when
 * every provider is up, {@code DOWN} when one is not, with each provider's description, state, the
 * time it entered that state and, when down, its one-line problem as details. It never calls a
 * provider: the engine's outage circuit keeps the state from locked calls and its background
 * probes. Present with micronaut-management; {@code locksmith.health.enabled=false} turns it off.
 */
@Singleton
@Requires(classes = HealthIndicator.class)
@Requires(condition = OnOffSwitch.HealthEnabled.class)
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class LocksmithHealthIndicator implements HealthIndicator {
  static final String NAME = "locksmith";

  private final Locksmith locksmith;

  LocksmithHealthIndicator(Locksmith locksmith) {
    this.locksmith = locksmith;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    return Mono.fromSupplier(this::result);
  }

  /** The current result, built from the engine's view of each provider. */
  HealthResult result() {
    Map<String, Object> details = new LinkedHashMap<>();
    HealthStatus status = HealthStatus.UP;
    for (ProviderHealth provider : locksmith.health()) {
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("status", provider.up() ? "UP" : "DOWN");
      detail.put("provider", provider.description());
      detail.put("since", provider.since().toString());
      String problem = provider.problem();
      if (!provider.up()) {
        status = HealthStatus.DOWN;
        detail.put("error", problem == null ? "unreachable" : problem);
      }
      details.put(provider.name(), detail);
    }
    return HealthResult.builder(NAME, status).details(details).build();
  }
}
