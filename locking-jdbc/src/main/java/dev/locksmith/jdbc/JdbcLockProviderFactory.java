package dev.locksmith.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.sql.DriverManager;

/**
 * Creates {@link JdbcLockProvider}s for {@code jdbc:} URLs, each with a small HikariCP pool of its
 * own ({@code poolSize}, default 4) whose connection timeout is the call's {@code timeout}, and, on
 * PostgreSQL, one more connection outside the pool for {@code LISTEN}. Creating checks the URL and
 * that a driver accepts it; the pool connects at the first call.
 */
public final class JdbcLockProviderFactory extends SchemeProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public JdbcLockProviderFactory() {
    super(JdbcLockProviderFactory::provider, "jdbc");
  }

  /** A provider with a pool of its own for {@code url}; see {@link JdbcLockProvider#create}. */
  static JdbcLockProvider provider(ProviderUrl url) {
    JdbcUrl parsed = JdbcUrl.parse(url);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(parsed.driverUrl());
    config.setMaximumPoolSize(parsed.poolSize());
    config.setMinimumIdle(Math.min(1, parsed.poolSize()));
    config.setConnectionTimeout(parsed.settings().timeout().toMillis());
    config.setValidationTimeout(Math.min(1000, parsed.settings().timeout().toMillis()));
    config.setInitializationFailTimeout(-1);
    config.setAutoCommit(true);
    config.setPoolName("locksmith-jdbc");
    HikariDataSource pool = new HikariDataSource(config);
    String driverUrl = parsed.driverUrl();
    return new JdbcLockProvider(
        pool,
        parsed.dialect(),
        parsed.settings(),
        () -> DriverManager.getConnection(driverUrl),
        pool,
        url.redacted());
  }
}
