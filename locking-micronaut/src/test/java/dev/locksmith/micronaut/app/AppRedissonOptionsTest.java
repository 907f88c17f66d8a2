package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The provider over the application's {@code RedissonClient} takes {@code locksmith.redisson.*} as
 * Spring's does: {@code allow-eviction} accepts a Redis whose policy evicts keys (it was never
 * read, and such a Redis refused every lock whatever the setting), and a bad {@code prefix} fails
 * the start naming the property.
 */
class AppRedissonOptionsTest {

  @Test
  void allowEvictionAcceptsARedisWhosePolicyEvictsKeys() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated("--maxmemory-policy", "allkeys-lru")) {
      try (ApplicationContext context = start(redis, Map.of())) {
        assertThatThrownBy(
                () -> context.getBean(Locksmith.class).run(LockOptions.named("e"), () -> {}))
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("allkeys-lru")
            .hasMessageContaining("allow-eviction");
      }
      try (ApplicationContext context =
          start(redis, Map.of("locksmith.redisson.allow-eviction", "1"))) {
        // Read as Spring and the other switches read it: "1" was false in Micronaut's binding.
        assertThat(context.getBean(Locksmith.class).run(LockOptions.named("e"), () -> {})).isTrue();
      }
    }
  }

  @Test
  void aBadPrefixFailsTheStartNamingTheProperty() {
    assertThat(startFailure("locksmith.redisson.prefix", "a{b"))
        .hasStackTraceContaining("locksmith.redisson.prefix");
  }

  @Test
  void aMisspeltAllowEvictionFailsTheStartNamingTheProperty() {
    assertThat(startFailure("locksmith.redisson.allow-eviction", "ture"))
        .hasStackTraceContaining("locksmith.redisson.allow-eviction: 'ture' is not true or false");
  }

  /** What starting the application with {@code key} set to {@code value} throws. */
  private static Throwable startFailure(String key, String value) {
    return catchThrowable(
        () ->
            ApplicationContext.run(
                    Map.of("app.redis.url", "redis://127.0.0.1:1", key, value), "app-redisson")
                .close());
  }

  private static ApplicationContext start(RedisServerProcess redis, Map<String, Object> more) {
    Map<String, Object> properties = new java.util.HashMap<>(more);
    properties.put("app.redis.url", redis.url());
    return ApplicationContext.run(properties, "app-redisson");
  }
}
