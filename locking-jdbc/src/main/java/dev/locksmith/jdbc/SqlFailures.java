package dev.locksmith.jdbc;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Reads an {@link SQLException}: whether running the operation again on a fresh connection is safe
 * and may succeed, whether the pool gave no connection in time, and its one-line reason.
 */
final class SqlFailures {
  private SqlFailures() {}

  /** Failures after which the same operation on a fresh connection is safe and may succeed. */
  static boolean retriable(SQLException e) {
    String state = e.getSQLState();
    if (noConnectionInTime(e)) {
      return false; // the pool gave no connection within the timeout: no time for another try
    }
    if (state == null) {
      return false;
    }
    return state.startsWith("08")
        || state.startsWith("57P0")
        || state.equals("40001")
        || state.equals("40P01")
        || state.equals("23505")
        || e.getErrorCode() == 1213;
  }

  /**
   * Whether the pool gave no connection within its timeout: a transient connection failure with no
   * SQL state or one of class 08 (connection exception). Decided on the state as well, since some
   * drivers (MariaDB's) throw the same exception type for any state they do not classify, such as
   * 3D000 "No database selected", which is a configuration error.
   */
  static boolean noConnectionInTime(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLTransientConnectionException
        && (state == null || state.startsWith("08"));
  }

  /** The first line of an SQL exception's message with its SQL state. */
  static String reason(SQLException e) {
    String message = String.valueOf(e.getMessage()).strip();
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      message = message.substring(0, newline).strip();
    }
    return e.getSQLState() == null ? message : message + " (SQL state " + e.getSQLState() + ")";
  }
}
