package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.Locksmith;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;

/**
 * The application's RedissonClient (a real redis-server) as the default provider, a named provider
 * from configuration (a real lock directory), Micrometer meters and the health indicator.
 */
@MicronautTest(environments = "providers")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProvidersTest implements TestPropertyProvider {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @Inject Reports reports;
  @Inject Locksmith locksmith;
  @Inject SimpleMeterRegistry meters;
  @Inject Collection<HealthIndicator> health;

  @Override
  public Map<String, String> getProperties() {
    try {
      Path dir = Files.createTempDirectory("locksmith-micronaut");
      return Map.of("locksmith.providers.files.url", dir.toUri().toString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @AfterAll
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void theApplicationsRedissonClientIsTheDefaultProviderNextToConfiguredOnes() throws Exception {
    assertThat(locksmith.providers()).containsOnlyKeys("", "redisson", "files");
    assertThat(locksmith.providers().get("")).isSameAs(locksmith.providers().get("redisson"));
    assertThat(locksmith.providers().get("").description()).contains("RedissonClient");

    Gate gate = new Gate();
    Future<Long> holder = pool.submit(() -> reports.monthly("2026-11", gate));
    gate.awaitEntered();
    assertThatThrownBy(() -> reports.monthly("2026-11", Gate.opened()))
        .isInstanceOf(LockBusyException.class);
    gate.open();
    long token = holder.get(20, TimeUnit.SECONDS);
    assertThat(reports.monthly("2026-11", Gate.opened())).isGreaterThan(token);

    assertThat(reports.archive()).isEqualTo("archive");
  }

  @Test
  void metersAreTaggedWithTheLockNameNeverTheKey() throws Exception {
    // The registry is the class's: the other test's calls count too, so this one counts increases,
    // from when the other test's last release was confirmed (its hold time recorded then).
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(meters.get("locksmith.leases.active").gauge().value()).isZero());
    long acquiredBefore = timerCount("locksmith.acquire", "name", "report", "outcome", "acquired");
    long busyBefore = timerCount("locksmith.acquire", "name", "report", "outcome", "busy");
    long heldBefore = timerCount("locksmith.held", "name", "report");
    reports.monthly("2026-12", Gate.opened());
    Gate gate = new Gate();
    Future<Long> holder = pool.submit(() -> reports.monthly("2027-01", gate));
    gate.awaitEntered();
    assertThatThrownBy(() -> reports.monthly("2027-01", Gate.opened()))
        .isInstanceOf(LockBusyException.class);
    // The first call's lease counts until its release is confirmed, which may come after it
    // returned.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(meters.get("locksmith.leases.active").gauge().value()).isEqualTo(1.0));
    gate.open();
    holder.get(20, TimeUnit.SECONDS);

    assertThat(
            meters
                .get("locksmith.acquire")
                .tags("name", "report", "provider", "default", "outcome", "acquired")
                .timer()
                .count())
        .isEqualTo(acquiredBefore + 2);
    assertThat(timerCount("locksmith.acquire", "name", "report", "outcome", "busy"))
        .isEqualTo(busyBefore + 1);
    // A lease counts as active until its release is confirmed, which may come after the return.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(timerCount("locksmith.held", "name", "report")).isEqualTo(heldBefore + 2);
              assertThat(meters.get("locksmith.leases.active").gauge().value()).isZero();
            });
    assertThat(meters.find("locksmith.errors").counters()).allMatch(c -> c.count() == 0);
    assertThat(meters.find("locksmith.lost").counters()).allMatch(c -> c.count() == 0);
    for (Meter meter : meters.getMeters()) {
      if (meter.getId().getName().startsWith("locksmith.")) {
        assertThat(meter.getId().getTags())
            .noneMatch(tag -> tag.getValue().contains("2026") || tag.getValue().contains("2027"));
      }
    }
  }

  @Test
  void healthReportsEveryProvider() {
    HealthResult result =
        health.stream()
            .map(indicator -> Mono.from(indicator.getResult()).block())
            .filter(r -> r != null && r.getName().equals("locksmith"))
            .findFirst()
            .orElseThrow();
    assertThat(result.getStatus()).isEqualTo(HealthStatus.UP);
    @SuppressWarnings("unchecked")
    Map<String, Object> details = (Map<String, Object>) result.getDetails();
    // The default provider is the redisson one: reported once, as the default.
    assertThat(details).containsOnlyKeys("default", "files");
  }

  private long timerCount(String name, String... tags) {
    Timer timer = meters.find(name).tags(tags).timer();
    return timer == null ? 0 : timer.count();
  }
}
