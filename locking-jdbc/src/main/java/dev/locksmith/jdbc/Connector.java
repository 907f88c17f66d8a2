package dev.locksmith.jdbc;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Uninterruptibly;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs one lock operation on a connection of its own: borrowed for the call, in autocommit (never
 * the caller's transaction), with a network timeout of what is left of the call's {@code timeout}
 * (counted from the call's start on the provider's own pool, from the first connection on an
 * application's). On first use it finds the dialect (from the URL, or the database's product name)
 * and creates the table when missing ({@link TableCreation}). A connection failure (SQL state class
 * 08, a terminated backend, a deadlock or a key race: {@link SqlFailures#retriable}) is tried
 * again, up to {@value #MAX_RETRIES} times, on another connection with the operation's retry, when
 * one is given and time is left; every other failure becomes a {@link LockProviderException} naming
 * the action, the lock, the database and the SQL state.
 */
final class Connector {
  private static final Executor DIRECT = Runnable::run;

  /** No isolation to give a connection back at: it was not changed. */
  private static final int NO_ISOLATION = -1;

  /**
   * Tries after a connection failure: a pool may hand out several connections that died together (a
   * restart, {@code pg_terminate_backend}) before it has noticed.
   */
  private static final int MAX_RETRIES = 4;

  /**
   * The least time left for another try: a statement with less fails at its network timeout on a
   * healthy connection (which the pool then discards) and leaves the outcome unknown.
   */
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** One operation's SQL on a borrowed connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection, LockSql sql) throws SQLException;
  }

  private final DataSource dataSource;
  private final @Nullable Dialect configured;
  private final JdbcSettings settings;
  private final String description;
  private final boolean ownPool;
  private final TableCreation table;
  private volatile @Nullable LockSql sql;
  // Whether the pool gives connections stricter than READ COMMITTED, as its first one told.
  private volatile @Nullable Boolean strictPool;

  /**
   * @param ownPool whether {@code dataSource} is the provider's own pool, whose wait for a
   *     connection counts in {@code timeout}; an application's pool waits by its own timeout, and
   *     each statement then gets the whole {@code timeout}
   */
  Connector(
      DataSource dataSource,
      @Nullable Dialect dialect,
      JdbcSettings settings,
      String description,
      boolean ownPool) {
    this.dataSource = dataSource;
    this.configured = dialect;
    this.settings = settings;
    this.description = description;
    this.ownPool = ownPool;
    this.table = new TableCreation(settings.createTable());
  }

  /** The dialect's statements, once known (after the first call when detected). */
  @Nullable LockSql sqlIfKnown() {
    return sql;
  }

  /**
   * Runs {@code first}, and {@code retry} after a connection failure while time is left; on a
   * thread whose interrupt flag is set as on any other ({@link Uninterruptibly}): a pool's wait for
   * a connection throws at once on such a thread, and a virtual thread's socket is closed.
   */
  <T> T call(String action, String lockId, Work<T> first, @Nullable Work<T> retry) {
    return Uninterruptibly.call(() -> callWithRetries(action, lockId, first, retry));
  }

  private <T> T callWithRetries(
      String action, String lockId, Work<T> first, @Nullable Work<T> retry) {
    // Over the provider's own pool the call's timeout counts from now, the borrow included; over an
    // application's pool it counts from the first connection, the borrow waiting by that pool's
    // own timeout.
    long[] deadline = {System.nanoTime() + settings.timeout().toNanos()};
    Work<T> work = first;
    boolean recreated = false;
    int retries = 0;
    SQLException earlier = null;
    while (true) {
      try {
        return runOnce(work, deadline, retries == 0 && !recreated);
      } catch (SQLException e) {
        if (e instanceof LateConnection && earlier != null) {
          // A retry's connection came too late: the failure that called for the retry is the news.
          earlier.addSuppressed(e);
          throw failure(action, lockId, earlier);
        }
        LockSql known = sql;
        if (known != null
            && known.dialect().missingTable(e.getSQLState(), e.getErrorCode())
            && settings.createTable()
            && !recreated) {
          recreated = true;
          table.dropped();
          continue;
        }
        if (retry != null
            && retries < MAX_RETRIES
            && SqlFailures.retriable(e)
            && deadline[0] - System.nanoTime() > MIN_RETRY_NANOS) {
          retries++;
          work = retry;
          earlier = e;
          continue;
        }
        throw failure(action, lockId, e);
      }
    }
  }

  /** A connection that came with too little of the call's timeout left to run a statement. */
  private static final class LateConnection extends SQLTransientConnectionException {
    private static final long serialVersionUID = 1L;

    LateConnection(long leftNanos) {
      super(
          "a connection came with "
              + Math.max(0, TimeUnit.NANOSECONDS.toMillis(leftNanos))
              + " ms of the timeout left, too late to run a statement",
          "08001");
    }
  }

  /**
   * Runs {@code work} on a borrowed connection, with a network timeout of what is left until {@code
   * deadline[0]}; on an application's pool the first borrow sets that deadline.
   */
  private <T> T runOnce(Work<T> work, long[] deadline, boolean first) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      if (!ownPool && first) {
        deadline[0] = System.nanoTime() + settings.timeout().toNanos();
      }
      long left = deadline[0] - System.nanoTime();
      if (left < MIN_RETRY_NANOS) {
        // Too little left to run a statement: it would time out on a healthy connection and leave
        // its outcome unknown. Nothing has been sent, so this fails as a late connection.
        throw new LateConnection(left);
      }
      int millis = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
      int previousTimeout = networkTimeout(connection, millis);
      boolean autoCommit = connection.getAutoCommit();
      if (!autoCommit) {
        connection.setAutoCommit(true);
      }
      int previousIsolation = NO_ISOLATION;
      try {
        LockSql statements = statements(connection);
        previousIsolation = readCommitted(connection, statements.dialect());
        table.ensure(connection, statements);
        return work.run(connection, statements);
      } finally {
        restore(connection, autoCommit, previousTimeout, previousIsolation);
      }
    }
  }

  /**
   * Gives the connection back as it was borrowed; a connection broken meanwhile is left to its
   * pool, which discards it.
   */
  private static void restore(
      Connection connection, boolean autoCommit, int previousTimeout, int previousIsolation) {
    try {
      if (previousIsolation != NO_ISOLATION) {
        connection.setTransactionIsolation(previousIsolation);
      }
      if (!autoCommit) {
        connection.setAutoCommit(false);
      }
      if (previousTimeout >= 0) {
        connection.setNetworkTimeout(DIRECT, previousTimeout);
      }
    } catch (SQLException e) {
      // Broken: the original failure, if any, is what the caller reports.
    }
  }

  /**
   * Sets READ COMMITTED where the dialect needs it and the connection came stricter, and returns
   * the isolation to give it back at, or {@link #NO_ISOLATION} when unchanged. Read from the
   * connection (a round trip with some drivers) only while the pool gives strict ones: its first
   * connection tells.
   */
  private int readCommitted(Connection connection, Dialect dialect) throws SQLException {
    if (!dialect.needsReadCommitted() || Boolean.FALSE.equals(strictPool)) {
      return NO_ISOLATION;
    }
    int isolation = connection.getTransactionIsolation();
    boolean strict = isolation > Connection.TRANSACTION_READ_COMMITTED;
    if (strictPool == null) {
      strictPool = strict;
    }
    if (!strict) {
      return NO_ISOLATION;
    }
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    return isolation;
  }

  /** Sets the network timeout and returns the previous one, or -1 when the driver has none. */
  private static int networkTimeout(Connection connection, int millis) throws SQLException {
    try {
      int previous = connection.getNetworkTimeout();
      connection.setNetworkTimeout(DIRECT, millis);
      return previous;
    } catch (SQLFeatureNotSupportedException | AbstractMethodError e) {
      return -1;
    }
  }

  private LockSql statements(Connection connection) throws SQLException {
    LockSql known = sql;
    if (known != null) {
      return known;
    }
    Dialect dialect = configured;
    if (dialect == null) {
      String product = connection.getMetaData().getDatabaseProductName();
      dialect =
          Dialect.of(product)
              .orElseThrow(
                  () ->
                      new LockConfigurationException(
                          "JDBC "
                              + description
                              + ": database '"
                              + product
                              + "' is not supported; supported: "
                              + Dialect.SUPPORTED));
    }
    known = LockSql.of(dialect, settings.table(), settings.channel());
    sql = known;
    return known;
  }

  LockProviderException failure(String action, String lockId, SQLException e) {
    LockSql known = sql;
    String what;
    if (known != null && known.dialect().missingTable(e.getSQLState(), e.getErrorCode())) {
      what =
          "table "
              + settings.table()
              + " does not exist and createTable=false; create it with the DDL in the"
              + " locking-jdbc README";
    } else if (SqlFailures.noConnectionInTime(e)) {
      what =
          "no connection within the timeout of "
              + settings.timeout().toMillis()
              + " ms (pool exhausted or database unreachable): "
              + SqlFailures.reason(e);
    } else {
      what = SqlFailures.reason(e);
    }
    return LockProviderException.callFailed("JDBC " + description, action, lockId, what, e);
  }
}
