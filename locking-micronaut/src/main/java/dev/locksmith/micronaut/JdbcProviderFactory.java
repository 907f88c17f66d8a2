package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.jdbc.JdbcLockProvider;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.reflect.ClassUtils;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/**
 * With {@code locksmith.url: jdbc}, the provider named {@code jdbc} over the application's {@link
 * DataSource} bean, which {@link LocksmithFactory} makes the default: {@code locking-jdbc} borrows
 * a connection for each lock operation and commits it at once, never closing the data source. The
 * pool behind Micronaut Data's contextual proxy is used ({@link LockDataSources}), so a lock never
 * joins the caller's transaction. The table comes from {@code locksmith.jdbc.table} and {@code
 * locksmith.jdbc.create-table}.
 */
@Factory
@Requires(classes = JdbcLockProvider.class)
@Requires(property = LocksmithFactory.ENABLED, notEquals = "false")
@Requires(property = JdbcProviderFactory.URL_KEY, value = JdbcProviderFactory.URL)
final class JdbcProviderFactory {
  /** The value of {@code locksmith.url} that means the application's {@link DataSource}. */
  static final String URL = "jdbc";

  static final String URL_KEY = "locksmith.url";

  /** The name of the provider over the application's data source. */
  static final String NAME = "jdbc";

  private static final String JDBC_PROVIDER = "dev.locksmith.jdbc.JdbcLockProvider";

  /** The provider over the application's data source. */
  @Singleton
  @Named(NAME)
  @Requires(beans = DataSource.class)
  @Bean(preDestroy = "close")
  LockProvider jdbcLockProvider(
      BeanContext beanContext,
      DataSource dataSource,
      @Value("${locksmith.jdbc.table:locksmith_locks}") String table,
      @Value("${locksmith.jdbc.create-table:true}") boolean createTable) {
    return JdbcLockProvider.builder(LockDataSources.forLocks(beanContext, dataSource))
        .table(table)
        .createTable(createTable)
        .build();
  }

  /**
   * Why {@code locksmith.url: jdbc} has no provider over the application's data source.
   *
   * @return the failure to throw, naming what is missing
   */
  static LockConfigurationException missing(BeanContext beanContext) {
    String prefix = "locksmith.url: jdbc uses the application's DataSource bean";
    if (!ClassUtils.isPresent(JDBC_PROVIDER, LocksmithFactory.class.getClassLoader())) {
      return new LockConfigurationException(
          prefix
              + " through locking-jdbc, which is not on the class path; add the dependency"
              + " dev.locksmith:locking-jdbc");
    }
    int dataSources = beanContext.getBeanDefinitions(DataSource.class).size();
    return new LockConfigurationException(
        dataSources == 0
            ? prefix
                + ", but the application defines none; configure one (datasources.default.url"
                + " with micronaut-jdbc-hikari), or give locksmith.url a full URL such as"
                + " jdbc:postgresql://host/db?user=app"
            : prefix
                + ", but it could not be used ("
                + dataSources
                + " DataSource beans); mark the one for locks @Primary");
  }

  /** A named provider's URL may not be the bare {@code jdbc}. */
  static LockConfigurationException namedNotSupported(String key) {
    return new LockConfigurationException(
        key
            + ": jdbc, the application's DataSource, serves only the default provider"
            + " (locksmith.url: jdbc); give this provider a full URL such as"
            + " jdbc:postgresql://host/db?user=app");
  }
}
