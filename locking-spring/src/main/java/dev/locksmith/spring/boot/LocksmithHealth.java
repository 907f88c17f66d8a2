package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

/** Health of each provider: a status read of a probe lock id reaches the provider's store. */
final class LocksmithHealth {
  /** The lock id read by the probe; it is never locked. */
  static final String PROBE_LOCK_ID = "locksmith-health-probe";

  private LocksmithHealth() {}

  /** One indicator per distinct provider, named as configured ({@code default} for the default). */
  static HealthContributor contributor(Locksmith locksmith) {
    Map<LockProvider, String> names = new IdentityHashMap<>();
    LockProvider defaultProvider = locksmith.providers().get("");
    if (defaultProvider != null) {
      names.put(defaultProvider, "default");
    }
    locksmith.providers().forEach((name, provider) -> names.putIfAbsent(provider, name));
    Map<String, HealthContributor> indicators = new TreeMap<>();
    names.forEach((provider, name) -> indicators.put(name, indicator(provider)));
    return CompositeHealthContributor.fromMap(indicators);
  }

  static HealthIndicator indicator(LockProvider provider) {
    return () -> {
      try {
        provider.status(PROBE_LOCK_ID);
        return Health.up().withDetail("provider", provider.description()).build();
      } catch (RuntimeException e) {
        return Health.down(e).withDetail("provider", provider.description()).build();
      }
    };
  }
}
