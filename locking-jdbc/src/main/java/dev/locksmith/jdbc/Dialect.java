package dev.locksmith.jdbc;

import java.util.Locale;
import java.util.Optional;

/**
 * What differs between databases: the database clock in microseconds, the table's DDL and the
 * atomic take-or-refuse statement. Every other statement is common ({@link LockSql}).
 *
 * <p>The table has one row per lock id: {@code lock_id}, {@code owner_token}, {@code owner}, {@code
 * fencing_token} and {@code expires_us}, the lease's end in microseconds since the epoch on the
 * database's clock. A lease is live while {@code expires_us} is after the database's now.
 */
interface Dialect {

  /** The database's name, for messages. */
  String name();

  /** An SQL expression: the database's clock now, in microseconds since the epoch, as a BIGINT. */
  String nowMicros();

  /**
   * {@code CREATE TABLE IF NOT EXISTS} for the lock table: standard column types, unless a database
   * needs its own.
   */
  default String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (lock_id VARCHAR(255) NOT NULL PRIMARY KEY,"
        + " owner_token VARCHAR(64) NOT NULL,"
        + " owner VARCHAR(255) NOT NULL,"
        + " fencing_token BIGINT NOT NULL,"
        + " expires_us BIGINT NOT NULL)";
  }

  /**
   * The statement that takes the lock when its lease has ended (or the row is missing, or the same
   * owner token holds it already), and otherwise changes nothing. Parameters: lock id, owner token,
   * owner, ttl in microseconds. The new fencing token is {@code GREATEST(old token + 1, now)}.
   */
  String acquire(String table);

  /**
   * Whether {@link #acquire} returns the granted fencing token as a result set (one row when
   * granted, none when refused); otherwise, as by default, the row is read back and the owner token
   * compared.
   */
  default boolean acquireReturnsToken() {
    return false;
  }

  /** The clause that ends a {@code SELECT} after its first {@code rows} rows. */
  default String firstRows(int rows) {
    return " LIMIT " + rows;
  }

  /**
   * Whether releases notify waiters through the database ({@code pg_notify}); by default they do
   * not, and waiters poll.
   */
  default boolean notifies() {
    return false;
  }

  /**
   * Whether the statements must run at READ COMMITTED, the connection set to it when its pool gives
   * it stricter: under REPEATABLE READ or SERIALIZABLE, PostgreSQL and H2 fail an upsert of a row
   * that another transaction changed since the snapshot began, which racing takes of one lock
   * always do.
   */
  default boolean needsReadCommitted() {
    return false;
  }

  /** Whether an SQL state or vendor code says the table does not exist. */
  default boolean missingTable(String sqlState, int vendorCode) {
    return "42P01".equals(sqlState) || "42S02".equals(sqlState) || vendorCode == 1146;
  }

  /** The dialect for a JDBC sub-protocol or a database product name. */
  static Optional<Dialect> of(String database) {
    String name = database.toLowerCase(Locale.ROOT);
    if (name.contains("postgres")) {
      return Optional.of(new PostgresDialect());
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return Optional.of(new MariaDbDialect());
    }
    if (name.equals("h2")) {
      return Optional.of(new H2Dialect());
    }
    return Optional.empty();
  }

  /** The databases {@link #of} knows, for messages. */
  String SUPPORTED = "postgresql, mariadb, mysql, h2";
}
