package dev.locksmith.micronaut.app;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * An application's own RedissonClient on {@code app.redis.url}, created lazily (it connects on
 * first use, so the application starts while Redis is down) and shut down by its own bean's
 * pre-destroy.
 */
@Factory
@Requires(env = "app-redisson")
class AppRedisson {

  @Singleton
  @Bean(preDestroy = "shutdown")
  RedissonClient redissonClient(@Value("${app.redis.url}") String url) {
    Config config = new Config().setLazyInitialization(true);
    config.useSingleServer().setAddress(url);
    return Redisson.create(config);
  }
}
