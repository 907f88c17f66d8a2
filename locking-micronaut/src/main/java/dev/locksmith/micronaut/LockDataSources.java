package dev.locksmith.micronaut;

import io.micronaut.context.BeanContext;
import io.micronaut.core.reflect.ClassUtils;
import io.micronaut.jdbc.DataSourceResolver;
import javax.sql.DataSource;

/**
 * The data source lock operations borrow from: the target behind Micronaut Data's contextual proxy
 * (through the context's {@link DataSourceResolver}, when micronaut-jdbc is present), since the
 * proxy hands out the connection of the caller's transaction, and a lock must commit at once and
 * survive that transaction's rollback.
 */
final class LockDataSources {
  private static final boolean MICRONAUT_JDBC =
      ClassUtils.isPresent(
          "io.micronaut.jdbc.DataSourceResolver", LockDataSources.class.getClassLoader());

  private LockDataSources() {}

  /** {@code dataSource}, or the plain pool behind it. */
  static DataSource forLocks(BeanContext beanContext, DataSource dataSource) {
    return MICRONAUT_JDBC ? Resolver.resolve(beanContext, dataSource) : dataSource;
  }

  /** Loaded only when micronaut-jdbc is on the class path. */
  private static final class Resolver {
    static DataSource resolve(BeanContext beanContext, DataSource dataSource) {
      return beanContext
          .findBean(DataSourceResolver.class)
          .orElse(DataSourceResolver.DEFAULT)
          .resolve(dataSource);
    }
  }
}
