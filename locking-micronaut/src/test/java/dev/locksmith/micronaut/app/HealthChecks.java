package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
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

  /**
   * Checks that the indicator is DOWN, with status DOWN and an error for the default provider;
   * returns that provider's details.
   */
  static Map<String, Object> assertDefaultDown(ApplicationContext context) {
    HealthResult down = locksmith(context);
    assertThat(down.getStatus()).isEqualTo(HealthStatus.DOWN);
    Map<String, Object> details = provider(down, "default");
    assertThat(details).containsEntry("status", "DOWN").containsKey("error");
    return details;
  }

  /** Waits (at most 30 s) until the indicator is UP. */
  static void awaitUp(ApplicationContext context) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(locksmith(context).getStatus()).isEqualTo(HealthStatus.UP));
  }
}
