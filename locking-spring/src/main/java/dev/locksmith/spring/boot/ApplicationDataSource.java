package dev.locksmith.spring.boot;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.LockProvider;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * {@code locksmith.url=jdbc}: the default provider is {@code locking-jdbc} over the application's
 * {@link DataSource} bean ({@link LocksmithAutoConfiguration}). This class says why it could not
 * be, at start-up.
 */
final class ApplicationDataSource {
  /** The value of {@code locksmith.url} that means the application's {@link DataSource}. */
  static final String URL = "jdbc";

  private static final String JDBC_PROVIDER = "dev.locksmith.jdbc.JdbcLockProvider";

  private ApplicationDataSource() {}

  /**
   * Whether a provider URL means the application's data source: {@link #URL} in any case, as Boot's
   * property condition that makes the provider bean compares it.
   */
  static boolean isUrl(@Nullable String url) {
    return URL.equalsIgnoreCase(url);
  }

  /**
   * Fails when {@code locksmith.url=jdbc} and no provider over the application's data source (nor
   * any other {@link LockProvider} bean, which would come first as for every URL) exists.
   *
   * @throws LockConfigurationException naming what is missing and what to do
   */
  static void check(ConfigurableListableBeanFactory beanFactory, LocksmithProperties properties) {
    if (!isUrl(properties.getUrl())
        || beanFactory.getBeanNamesForType(LockProvider.class).length > 0) {
      return;
    }
    String prefix = "locksmith.url=jdbc uses the application's DataSource bean";
    if (!ClassUtils.isPresent(JDBC_PROVIDER, beanFactory.getBeanClassLoader())) {
      throw new LockConfigurationException(
          prefix
              + " through locking-jdbc, which is not on the class path; add the dependency"
              + " dev.locksmith:locksmith-jdbc");
    }
    int dataSources = beanFactory.getBeanNamesForType(DataSource.class).length;
    throw new LockConfigurationException(
        dataSources == 0
            ? prefix
                + ", but the application defines none; configure one (spring.datasource.url with"
                + " spring-boot-starter-jdbc), or give locksmith.url a full URL such as"
                + " jdbc:postgresql://host/db?user=app"
            : prefix
                + ", but the application defines "
                + dataSources
                + " and none is @Primary; mark the one for locks @Primary");
  }
}
