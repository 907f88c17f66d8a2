package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tcp.server.LockServer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The health indicator turns DOWN when the lock server goes away. */
class HealthDownTest {

  @Test
  void healthIsDownWhenTheProviderCannotBeReached() throws Exception {
    LockServer server = LockServer.builder().port(0).build();
    int port = server.start();
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", "tcp://127.0.0.1:" + port), "none")) {
      assertThat(locksmithHealth(context).getStatus()).isEqualTo(HealthStatus.UP);

      server.close();
      server.awaitTermination();

      HealthResult down = locksmithHealth(context);
      assertThat(down.getStatus()).isEqualTo(HealthStatus.DOWN);
      assertThat(down.getDetails().toString()).contains("default").contains("error");
    } finally {
      server.close();
    }
  }

  private static HealthResult locksmithHealth(ApplicationContext context) {
    return context.getBeansOfType(HealthIndicator.class).stream()
        .map(indicator -> Mono.from(indicator.getResult()).block())
        .filter(Objects::nonNull)
        .filter(result -> result.getName().equals("locksmith"))
        .findFirst()
        .orElseThrow();
  }
}
