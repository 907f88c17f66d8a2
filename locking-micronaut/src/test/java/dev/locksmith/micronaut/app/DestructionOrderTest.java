package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Closing the context destroys the engine before the provider beans, and those before the
 * application's RedissonClient they use, so a lease released while the engine closes still has a
 * client to go through.
 */
class DestructionOrderTest {

  @Test
  void theEngineClosesBeforeTheProviderBeanAndTheApplicationsRedissonClient() {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      ApplicationContext context =
          ApplicationContext.run(
              Map.of("app.redis.url", redis.url()), "app-redisson", "destruction-order");
      DestructionOrder order = context.getBean(DestructionOrder.class);

      context.close();

      assertThat(order.destroyed).containsExactly("Locksmith", "LockProvider", "RedissonClient");
    }
  }
}
