package dev.locksmith.micronaut.app;

import io.micronaut.context.ApplicationContext;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Mono;

/** Reads the {@code locksmith} health indicator of a context. */
final class HealthChecks {
  private HealthChecks() {}

  /** The indicator's current result. */
  static HealthResult locksmith(ApplicationContext context) {
    return context.getBeansOfType(HealthIndicator.class).stream()
        .map(indicator -> Mono.from(indicator.getResult()).block(Duration.ofSeconds(5)))
        .filter(Objects::nonNull)
        .filter(result -> result.getName().equals("locksmith"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no locksmith health indicator"));
  }

  /** One provider's details in a result. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> provider(HealthResult result, String name) {
    Map<String, Object> details = (Map<String, Object>) result.getDetails();
    Object provider = details.get(name);
    if (provider == null) {
      throw new AssertionError("no provider '" + name + "' in " + details);
    }
    return (Map<String, Object>) provider;
  }
}
