package dev.locksmith.spring.boot;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.spring.EnableDistributedLocking;
import dev.locksmith.spring.SpringLocksmith;
import dev.locksmith.zookeeper.ZkLockProvider;
import dev.locksmith.zookeeper.ZkLockProviderBuilder;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Makes {@code @DistributedLock} work on every bean of a Spring Boot application: the engine built
 * from {@code locksmith.*}, {@code LockProvider} beans, a {@code RedissonClient} or {@code
 * CuratorFramework} bean or (with {@code locksmith.url=jdbc}) the application's {@code DataSource}
 * bean, the lock advisor (or the AspectJ binding) and start-up validation. It backs off for a
 * {@link Locksmith} bean the application defines, and registers no interception twice when the
 * application also uses {@link EnableDistributedLocking}.
 */
@AutoConfiguration(
    afterName = {
      "org.redisson.spring.starter.RedissonAutoConfigurationV4",
      "org.redisson.spring.starter.RedissonAutoConfigurationV2",
      "org.redisson.spring.starter.RedissonAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      // Spring Cloud Zookeeper's CuratorFramework, which would otherwise come after this one.
      "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration"
    })
@ConditionalOnClass(Locksmith.class)
@Conditional(LockingEnabledCondition.class)
@EnableConfigurationProperties(LocksmithProperties.class)
@Import(BootLockingRegistrar.class)
public final class LocksmithAutoConfiguration {

  /** Creates the auto-configuration. */
  public LocksmithAutoConfiguration() {}

  /**
   * The engine: {@code LockProvider} beans first, then {@code locksmith.url} and {@code
   * locksmith.providers.<name>.url}.
   */
  @Bean
  @ConditionalOnMissingBean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static Locksmith locksmith(
      ConfigurableListableBeanFactory beanFactory,
      Environment environment,
      LocksmithProperties properties) {
    ApplicationDataSource.check(beanFactory, properties);
    NamedProviderKeys.check(environment);
    return SpringLocksmith.create(
        beanFactory, environment, properties.toSettings(), properties::configure);
  }

  /**
   * The default provider over the application's {@code RedissonClient}. Ordered before {@link
   * CuratorProviderConfiguration}, so that with both clients the Redisson one is the default.
   */
  @Configuration(proxyBeanMethods = false)
  @Order(0)
  @ConditionalOnClass({RedissonClient.class, RedisLockProvider.class})
  @ConditionalOnSingleCandidate(RedissonClient.class)
  @ConditionalOnMissingBean({LockProvider.class, Locksmith.class})
  @Conditional({OnOffPropertyCondition.RedissonEnabled.class, NoDefaultUrlCondition.class})
  static final class RedissonProviderConfiguration {

    @Bean
    static RedisLockProvider locksmithRedissonProvider(
        RedissonClient client, LocksmithProperties properties) {
      LocksmithProperties.Redisson redisson = properties.getRedisson();
      RedisLockOptions options;
      try {
        options =
            RedisLockOptions.defaults()
                .withPrefix(redisson.getPrefix())
                .withAllowEviction(redisson.isAllowEviction());
      } catch (IllegalArgumentException e) {
        throw new LockConfigurationException("locksmith.redisson.prefix: " + e.getMessage(), e);
      }
      return RedisLockProvider.create(client, options);
    }
  }

  /**
   * The default provider over the application's {@code CuratorFramework} (ZooKeeper), when no
   * {@code RedissonClient} bean took the default before it: locks under {@code
   * locksmith.curator.base-path}. The client stays the application's (started and closed by it);
   * the provider bean depends on it, and the engine on the provider, so the context closes the
   * engine (releasing its leases through the client) before the client.
   */
  @Configuration(proxyBeanMethods = false)
  @Order(1)
  @ConditionalOnClass({CuratorFramework.class, ZkLockProvider.class})
  @ConditionalOnSingleCandidate(CuratorFramework.class)
  @ConditionalOnMissingBean({LockProvider.class, Locksmith.class})
  @Conditional({OnOffPropertyCondition.CuratorEnabled.class, NoDefaultUrlCondition.class})
  static final class CuratorProviderConfiguration {

    @Bean
    static ZkLockProvider locksmithCuratorProvider(
        CuratorFramework client, LocksmithProperties properties) {
      LocksmithProperties.Curator curator = properties.getCurator();
      ZkLockProviderBuilder builder = ZkLockProvider.builder(client);
      try {
        builder.basePath(curator.getBasePath());
      } catch (IllegalArgumentException e) {
        throw new LockConfigurationException("locksmith.curator.base-path: " + e.getMessage(), e);
      }
      try {
        builder.timeout(curator.getTimeout());
      } catch (IllegalArgumentException e) {
        throw new LockConfigurationException("locksmith.curator.timeout: " + e.getMessage(), e);
      }
      return builder.build();
    }
  }

  /**
   * With {@code locksmith.url=jdbc}, the default provider over the application's {@code DataSource}
   * bean (the target behind a {@code TransactionAwareDataSourceProxy}, so that lock operations
   * never join the caller's transaction), with the table of {@code locksmith.jdbc.*}.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(JdbcLockProvider.class)
  @ConditionalOnProperty(name = "locksmith.url", havingValue = ApplicationDataSource.URL)
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnMissingBean({LockProvider.class, Locksmith.class})
  static final class JdbcProviderConfiguration {

    @Bean
    static JdbcLockProvider locksmithJdbcProvider(
        DataSource dataSource, LocksmithProperties properties) {
      LocksmithProperties.Jdbc jdbc = properties.getJdbc();
      return JdbcLockProvider.builder(TransactionAwareTargets.forLocks(dataSource))
          .table(jdbc.getTable())
          .createTable(jdbc.isCreateTable())
          .build();
    }
  }
}
