package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of each provider as the engine last saw it ({@link Locksmith#health()}): reading it never
 * calls a provider, so a health check cannot block on an unreachable backend. The engine decides
 * when a provider is down and probes it until it answers again.
 */
final class LocksmithHealth {

  private LocksmithHealth() {}

  /** One indicator per distinct provider, named as configured ({@code default} for the default). */
  static HealthContributor contributor(Locksmith locksmith) {
    Map<String, HealthContributor> indicators = new TreeMap<>();
    for (ProviderHealth provider : locksmith.health()) {
      indicators.put(provider.name(), indicator(locksmith, provider.name()));
    }
    return CompositeHealthContributor.fromMap(indicators);
  }

  static HealthIndicator indicator(Locksmith locksmith, String name) {
    return () ->
        locksmith.health().stream()
            .filter(provider -> provider.name().equals(name))
            .findFirst()
            .map(LocksmithHealth::health)
            .orElseGet(() -> Health.unknown().withDetail("provider", name).build());
  }

  private static Health health(ProviderHealth provider) {
    Health.Builder builder = provider.up() ? Health.up() : Health.down();
    builder.withDetail("provider", provider.description()).withDetail("since", provider.since());
    String problem = provider.problem();
    if (problem != null) {
      builder.withDetail("problem", problem);
    }
    return builder.build();
  }
}
