package dev.locksmith.micronaut;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import io.micronaut.context.annotation.Requires;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reports {@code locksmith} in the health endpoint: {@code UP} when every configured provider
 * answers a status query, {@code DOWN} otherwise, with each provider's description or error as
 * details. Present with micronaut-management; {@code locksmith.health.enabled=false} turns it off.
 */
@Singleton
@Requires(classes = HealthIndicator.class)
@Requires(property = "locksmith.health.enabled", notEquals = "false")
final class LocksmithHealthIndicator implements HealthIndicator {
  static final String NAME = "locksmith";
  private static final String PROBE = "locksmith-health-probe";

  private final Locksmith locksmith;

  LocksmithHealthIndicator(Locksmith locksmith) {
    this.locksmith = locksmith;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    // Providers answer over the network: never on the caller's (possibly event-loop) thread.
    return Mono.fromCallable(this::check).subscribeOn(Schedulers.boundedElastic());
  }

  private HealthResult check() {
    Map<String, Object> details = new LinkedHashMap<>();
    HealthStatus status = HealthStatus.UP;
    for (Map.Entry<String, LockProvider> entry : locksmith.providers().entrySet()) {
      String name = entry.getKey().isEmpty() ? "default" : entry.getKey();
      LockProvider provider = entry.getValue();
      try {
        provider.status(PROBE);
        details.put(name, Map.of("status", "UP", "provider", provider.description()));
      } catch (RuntimeException e) {
        status = HealthStatus.DOWN;
        details.put(
            name,
            Map.of("status", "DOWN", "provider", provider.description(), "error", e.toString()));
      }
    }
    return HealthResult.builder(NAME, status).details(details).build();
  }
}
