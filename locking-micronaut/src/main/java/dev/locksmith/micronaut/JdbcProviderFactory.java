package dev.locksmith.micronaut;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.jdbc.JdbcLockProvider;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
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
@Requires(condition = OnOffSwitch.LockingEnabled.class)
@Requires(property = DataSourceUrl.URL_KEY, pattern = DataSourceUrl.URL_PATTERN)
final class JdbcProviderFactory {
  /** The provider over the application's data source. */
  @Singleton
  @Named(DataSourceUrl.NAME)
  @Requires(beans = DataSource.class)
  @Bean(preDestroy = "close")
  LockProvider jdbcLockProvider(
      BeanContext beanContext,
      DataSource dataSource,
      @Value("${locksmith.jdbc.table:locksmith_locks}") String table,
      @Value("${locksmith.jdbc.create-table:true}") String createTable) {
    return JdbcLockProvider.builder(LockDataSources.forLocks(beanContext, dataSource))
        .table(table)
        .createTable(OnOffSwitch.parse("locksmith.jdbc.create-table", createTable))
        .build();
  }
}
