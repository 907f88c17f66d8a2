package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application starts while Redis is down, its health says DOWN with the provider's one-line
 * problem, and UP once Redis is started (on the port fixed before the context started); {@code
 * locksmith.require-providers-at-startup=true} refuses to start instead.
 */
class BackendDownAtStartTest {
  private static final Logger LOG = LoggerFactory.getLogger(BackendDownAtStartTest.class);

  /** Redisson's worst case for one call with the URL defaults is 2 s; room for a loaded machine. */
  private static final Duration DOWN_WITHIN = Duration.ofSeconds(10);

  private static final Duration UP_WITHIN = Duration.ofSeconds(30);

  private RedisServerProcess redis;

  @BeforeEach
  void redisOnAFixedPortButStopped() {
    redis = TestRedis.startDedicated();
    redis.stop();
  }

  @AfterEach
  void closeRedis() {
    redis.close();
  }

  @Test
  void aConfiguredRedisThatIsDownAtStartIsReportedDownThenUpWhenItStarts() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", redis.url()), "none")) {
      assertDownThenUp(context, "default");
    }
  }

  @Test
  void theApplicationsRedissonClientThatCannotConnectAtStartIsReportedDownThenUp() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("app.redis.url", redis.url()), "app-redisson")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      assertThat(locksmith.providers().get("").description()).contains("RedissonClient");
      assertDownThenUp(context, "default");
    }
  }

  @Test
  void requiringProvidersAtStartupRefusesToStartWhileRedisIsDown() {
    Map<String, Object> properties =
        Map.of("locksmith.url", redis.url(), "locksmith.require-providers-at-startup", "true");
    Throwable refused = catchThrowable(() -> ApplicationContext.run(properties, "none").close());
    assertThat(causes(refused))
        .filteredOn(LockProviderException.class::isInstance)
        .first()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .contains("127.0.0.1:" + redis.port())
                    .contains("locksmith.require-providers-at-startup"));
  }

  @Test
  void requiringProvidersAtStartupStartsWhenRedisIsUp() {
    redis.restart();
    Map<String, Object> properties =
        Map.of("locksmith.url", redis.url(), "locksmith.require-providers-at-startup", "true");
    try (ApplicationContext context = ApplicationContext.run(properties, "none")) {
      assertThat(HealthChecks.locksmith(context).getStatus()).isEqualTo(HealthStatus.UP);
    }
  }

  private static List<Throwable> causes(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = error; t != null && chain.size() < 20; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private void assertDownThenUp(ApplicationContext context, String provider) {
    Locksmith locksmith = context.getBean(Locksmith.class);
    // The engine probes each provider once in the background at start; no call is needed.
    await()
        .atMost(DOWN_WITHIN)
        .untilAsserted(
            () ->
                assertThat(HealthChecks.locksmith(context).getStatus())
                    .isEqualTo(HealthStatus.DOWN));
    HealthResult down = HealthChecks.locksmith(context);
    assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("down-at-start")))
        .isInstanceOf(LockProviderException.class);
    Map<String, Object> details = HealthChecks.provider(down, provider);
    LOG.info("Health while Redis is down: {}", details);
    assertThat(details).containsEntry("status", "DOWN");
    assertThat(details.get("error")).asString().isNotBlank().doesNotContain("\n");

    redis.restart();
    await()
        .atMost(UP_WITHIN)
        .untilAsserted(
            () ->
                assertThat(HealthChecks.locksmith(context).getStatus()).isEqualTo(HealthStatus.UP));
    assertThat(HealthChecks.provider(HealthChecks.locksmith(context), provider))
        .containsEntry("status", "UP")
        .doesNotContainKey("error");
    Optional<Lease> lease = locksmith.tryAcquire(LockOptions.named("down-at-start"));
    assertThat(lease).isPresent();
    lease.get().close();
  }
}
