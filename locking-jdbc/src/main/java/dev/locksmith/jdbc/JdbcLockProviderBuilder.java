package dev.locksmith.jdbc;

import dev.locksmith.core.LockConfigurationException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link JdbcLockProvider} over an application's {@link DataSource}; from {@link
 * JdbcLockProvider#builder(DataSource)}. The provider never closes the data source.
 */
public final class JdbcLockProviderBuilder {
  private final DataSource dataSource;
  private String table = JdbcSettings.DEFAULT_TABLE;
  private boolean createTable = true;
  private Duration timeout = JdbcSettings.DEFAULT_TIMEOUT;
  private Duration maxPoll = JdbcSettings.DEFAULT_MAX_POLL;
  private Duration retention = JdbcSettings.DEFAULT_RETENTION;
  private @Nullable String database;
  private @Nullable String description;

  JdbcLockProviderBuilder(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * The lock table, optionally {@code schema.table}; default {@code locksmith_locks}. Letters,
   * digits and {@code _}, and no word that H2, PostgreSQL or MySQL/MariaDB reserves ({@code order},
   * {@code user}...): {@link #build()} refuses it.
   *
   * @param table the table's name
   * @return this builder
   */
  public JdbcLockProviderBuilder table(String table) {
    this.table = Objects.requireNonNull(table, "table");
    return this;
  }

  /**
   * Whether the table is created on first use when missing; default {@code true}.
   *
   * @param createTable whether to create a missing table
   * @return this builder
   */
  public JdbcLockProviderBuilder createTable(boolean createTable) {
    this.createTable = createTable;
    return this;
  }

  /**
   * How long one call may take; default 2 s. Over an application's data source, borrowing a
   * connection waits for that pool's own connection timeout, and this bound counts from the
   * connection.
   *
   * @param timeout the bound of one call
   * @return this builder
   */
  public JdbcLockProviderBuilder timeout(Duration timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    return this;
  }

  /**
   * The longest pause between a polling waiter's attempts; default 100 ms.
   *
   * @param maxPoll the longest pause
   * @return this builder
   */
  public JdbcLockProviderBuilder maxPoll(Duration maxPoll) {
    this.maxPoll = Objects.requireNonNull(maxPoll, "maxPoll");
    return this;
  }

  /**
   * How long rows of ended leases are kept before a sweep deletes them; default 1 h, from 1 min to
   * 365 days.
   *
   * @param retention how long ended rows are kept
   * @return this builder
   */
  public JdbcLockProviderBuilder retention(Duration retention) {
    this.retention = Objects.requireNonNull(retention, "retention");
    return this;
  }

  /**
   * The database ({@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}); default: read
   * from the connection's metadata at the first call.
   *
   * @param database the database's kind
   * @return this builder
   */
  public JdbcLockProviderBuilder database(String database) {
    this.database = Objects.requireNonNull(database, "database");
    return this;
  }

  /**
   * The description for logs and health; default {@code jdbc (application DataSource, TABLE)}.
   *
   * @param description the description
   * @return this builder
   */
  public JdbcLockProviderBuilder description(String description) {
    this.description = Objects.requireNonNull(description, "description");
    return this;
  }

  /**
   * Builds the provider without contacting the database.
   *
   * @return the provider; it never closes the data source
   * @throws LockConfigurationException when a setting is wrong, naming it
   */
  public JdbcLockProvider build() {
    JdbcSettings settings;
    try {
      settings = new JdbcSettings(table, createTable, timeout, maxPoll, retention);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException("JDBC lock provider: " + e.getMessage(), e);
    }
    Dialect dialect = null;
    if (database != null) {
      String name = database;
      dialect =
          Dialect.of(name)
              .orElseThrow(
                  () ->
                      new LockConfigurationException(
                          "JDBC lock provider: database '"
                              + name
                              + "' is not supported; supported: "
                              + Dialect.SUPPORTED));
    }
    String text =
        description != null
            ? description
            : "jdbc (application DataSource, table " + settings.table() + ")";
    return new JdbcLockProvider(
        dataSource, dialect, settings, dataSource::getConnection, null, text);
  }
}
