package dev.locksmith.micronaut.app;

import com.zaxxer.hikari.HikariDataSource;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/**
 * The application's {@link DataSource} (a pool on {@code test.database-url}), for {@link
 * DataSourceProviderTest}.
 */
@Factory
@Requires(env = "datasource")
class DataSourceBeans {

  /** Named {@code default}, as micronaut-jdbc-hikari names {@code datasources.default}. */
  @Singleton
  @Named("default")
  @Bean(preDestroy = "close")
  HikariDataSource dataSource(@Value("${test.database-url}") String url) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(url);
    pool.setMaximumPoolSize(4);
    return pool;
  }
}
