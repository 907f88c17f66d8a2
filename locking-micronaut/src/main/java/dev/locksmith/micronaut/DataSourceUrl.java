package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import io.micronaut.context.BeanContext;
import io.micronaut.core.reflect.ClassUtils;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@code locksmith.url: jdbc}, the application's {@link DataSource}: the names {@link
 * JdbcProviderFactory} and {@link LocksmithFactory} share, and the failures that say why it cannot
 * be served. Free of {@code locking-jdbc} types, so that it loads without that module.
 */
final class DataSourceUrl {
  /** The value of {@code locksmith.url} that means the application's {@link DataSource}. */
  static final String URL = "jdbc";

  /** {@link #URL} in any case, as Spring reads it. */
  static final String URL_PATTERN = "(?i)jdbc";

  static final String URL_KEY = "locksmith.url";

  /** The name of the provider over the application's data source. */
  static final String NAME = "jdbc";

  private static final String JDBC_PROVIDER = "dev.locksmith.jdbc.JdbcLockProvider";

  private DataSourceUrl() {}

  /** Whether a provider URL is {@link #URL}, the application's {@link DataSource}. */
  static boolean isUrl(@Nullable String url) {
    return URL.equalsIgnoreCase(url);
  }

  /**
   * Why {@code locksmith.url: jdbc} has no provider over the application's data source.
   *
   * @return the failure to throw, naming what is missing
   */
  static LockConfigurationException missing(BeanContext beanContext) {
    String prefix = "locksmith.url: jdbc uses the application's DataSource bean";
    if (!ClassUtils.isPresent(JDBC_PROVIDER, DataSourceUrl.class.getClassLoader())) {
      return new LockConfigurationException(
          prefix
              + " through locking-jdbc, which is not on the class path; add the dependency"
              + " dev.locksmith:locksmith-jdbc");
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
