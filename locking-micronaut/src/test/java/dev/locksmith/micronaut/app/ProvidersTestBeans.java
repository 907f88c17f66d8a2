package dev.locksmith.micronaut.app;

import dev.locksmith.testkit.redis.TestRedis;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The application's own Redisson client. */
@Factory
@Requires(env = "providers")
class ProvidersTestBeans {

  @Singleton
  @Bean(preDestroy = "shutdown")
  RedissonClient redissonClient() {
    Config config = new Config();
    config.useSingleServer().setAddress(TestRedis.sharedUrl());
    return Redisson.create(config);
  }
}
