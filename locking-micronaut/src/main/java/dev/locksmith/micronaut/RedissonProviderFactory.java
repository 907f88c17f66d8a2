package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import org.redisson.api.RedissonClient;

/**
 * Reuses the application's {@link RedissonClient} bean, when there is one and {@code locking-redis}
 * is on the class path, as the provider named {@code redisson}; it is also the default provider
 * when {@code locksmith.url} is not set. The client stays the application's: the provider never
 * shuts it down. {@code locksmith.redisson.enabled=false} turns this off.
 */
@Factory
@Requires(classes = {RedissonClient.class, RedisLockProvider.class})
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class RedissonProviderFactory {

  /**
   * The provider over the application's client, with keys under {@code locksmith.redisson.prefix},
   * accepting a Redis whose policy evicts keys when {@code locksmith.redisson.allow-eviction} is
   * {@code true}.
   */
  @Singleton
  @Named(LocksmithFactory.REDISSON)
  @Requires(beans = RedissonClient.class)
  @Requires(condition = OnOffSwitch.RedissonEnabled.class)
  @Bean(preDestroy = "close")
  LockProvider redissonLockProvider(
      RedissonClient client,
      @Value("${locksmith.redisson.prefix:" + RedisLockOptions.DEFAULT_PREFIX + "}") String prefix,
      @Value("${locksmith.redisson.allow-eviction:false}") String allowEvictionText) {
    boolean allowEviction =
        OnOffSwitch.parse("locksmith.redisson.allow-eviction", allowEvictionText);
    RedisLockOptions options;
    try {
      options = RedisLockOptions.defaults().withPrefix(prefix).withAllowEviction(allowEviction);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException("locksmith.redisson.prefix: " + e.getMessage(), e);
    }
    return RedisLockProvider.create(client, options);
  }
}
