package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.zookeeper.ZkLockProvider;
import dev.locksmith.zookeeper.ZkLockProviderBuilder;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * Reuses the application's {@link CuratorFramework} bean, when there is one and {@code
 * locking-zookeeper} is on the class path, as the provider named {@code curator}; it is also the
 * default provider when {@code locksmith.url} is not set and no other bean (nor a {@code
 * RedissonClient}) is. The client stays the application's: the provider never closes it, and the
 * context destroys the engine and this provider before it. {@code locksmith.curator.enabled=false}
 * turns this off.
 */
@Factory
@Requires(classes = {CuratorFramework.class, ZkLockProvider.class})
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class CuratorProviderFactory {
  /** The prefix of this provider's settings. */
  static final String PREFIX = "locksmith.curator";

  /**
   * The provider over the application's client, with locks under {@code
   * locksmith.curator.base-path} (default {@code /locksmith}) and each call bounded by {@code
   * locksmith.curator.timeout} (default 2 s).
   *
   * @throws LockConfigurationException when the base path or timeout is invalid, naming it
   */
  @Singleton
  @Named(LocksmithFactory.CURATOR)
  @Requires(beans = CuratorFramework.class)
  @Requires(condition = OnOffSwitch.CuratorEnabled.class)
  @Bean(preDestroy = "close")
  LockProvider curatorLockProvider(
      CuratorFramework client,
      @Value("${" + PREFIX + ".base-path:/locksmith}") String basePath,
      @Value("${" + PREFIX + ".timeout:2s}") Duration timeout) {
    ZkLockProviderBuilder builder = ZkLockProvider.builder(client);
    try {
      builder.basePath(basePath);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(PREFIX + ".base-path: " + e.getMessage(), e);
    }
    try {
      builder.timeout(timeout);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(PREFIX + ".timeout: " + e.getMessage(), e);
    }
    return builder.build();
  }
}
