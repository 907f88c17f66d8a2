package dev.locksmith.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application with two {@code RedissonClient} beans, neither primary: which one a default
 * provider would use is not for Locksmith to guess, so the provider over the application's client
 * backs off, as the one over a {@code CuratorFramework} bean does, and the named providers start.
 */
class TwoRedissonClientsTest {
  private final RedissonClient first = client();
  private final RedissonClient second = client();

  @AfterEach
  void shutDown() {
    first.shutdown();
    second.shutdown();
  }

  @Test
  void theProviderOverTheApplicationsClientBacksOffAndNamedProvidersStart() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
        .withBean("orders", RedissonClient.class, () -> first)
        .withBean("billing", RedissonClient.class, () -> second)
        .withPropertyValues("locksmith.providers.reports.url=mem:")
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class);
              assertThat(context.getBean(Locksmith.class).providers())
                  .containsOnlyKeys("reports")
                  .extractingByKey("reports")
                  .isInstanceOf(MemoryLockProvider.class);
            });
  }

  private static RedissonClient client() {
    Config config = new Config();
    config.useSingleServer().setAddress(TestRedis.sharedUrl());
    return Redisson.create(config);
  }
}
