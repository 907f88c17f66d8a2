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
abstract sealed class Dialect permits PostgresDialect, MariaDbDialect, H2Dialect {
  /** The databases {@link #of} knows, for messages. */
  static final String SUPPORTED = "postgresql, mariadb, mysql, h2";

  private final String name;
  private final String nowMicros;
  private final boolean acquireReturnsToken;
  private final boolean notifies;

  /**
   * A dialect answering {@link #name}, {@link #nowMicros}, {@link #acquireReturnsToken} and {@link
   * #notifies} with these.
   */
  Dialect(String name, String nowMicros, boolean acquireReturnsToken, boolean notifies) {
    this.name = name;
    this.nowMicros = nowMicros;
    this.acquireReturnsToken = acquireReturnsToken;
    this.notifies = notifies;
  }

  /** The database's name, for messages. */
  final String name() {
    return name;
  }

  /** An SQL expression: the database's clock now, in microseconds since the epoch, as a BIGINT. */
  final String nowMicros() {
    return nowMicros;
  }

  /**
   * {@code CREATE TABLE IF NOT EXISTS} for the lock table; the standard column types unless a
   * database needs its own.
   */
  String createTable(String table) {
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
  abstract String acquire(String table);

  /**
   * Whether {@link #acquire} returns the granted fencing token as a result set (one row when
   * granted, none when refused); otherwise the row is read back and the owner token compared.
   */
  final boolean acquireReturnsToken() {
    return acquireReturnsToken;
  }

  /** Whether releases notify waiters through the database ({@code pg_notify}). */
  final boolean notifies() {
    return notifies;
  }

  /** Whether an SQL state or vendor code says the table does not exist. */
  boolean missingTable(String sqlState, int vendorCode) {
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
}
