package dev.locksmith.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates the lock table when missing, on the connection of the first call that needs it and again
 * after a call found it dropped; with {@code createTable=false} the table is taken as it is.
 */
final class TableCreation {
  private final boolean enabled;
  private volatile boolean ready;

  /**
   * @param enabled whether a missing table is created ({@code createTable})
   */
  TableCreation(boolean enabled) {
    this.enabled = enabled;
  }

  /** Makes sure of the table, unless an earlier call has done so already. */
  void ensure(Connection connection, LockSql statements) throws SQLException {
    if (ready) {
      return;
    }
    if (!enabled) {
      ready = true;
      return;
    }
    // A table the name already resolves to is used as it is: PostgreSQL's CREATE TABLE IF NOT
    // EXISTS looks only in the first schema of the search path, so it would make a second table
    // there (a schema named after the user) beside the one the others use (in public).
    if (usable(connection, statements)) {
      ready = true;
      return;
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute(statements.createTable());
    } catch (SQLException e) {
      // Two clients creating it at once (PostgreSQL reports the loser's duplicate type or table),
      // or a user without CREATE rights on a schema where the table exists: fine if it is there.
      if (!usable(connection, statements)) {
        throw e;
      }
    }
    ready = true;
  }

  /** Notes that the table was dropped since it was made sure of: the next call creates it again. */
  void dropped() {
    ready = false;
  }

  private static boolean usable(Connection connection, LockSql statements) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT lock_id FROM " + statements.table() + " WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      return false;
    }
  }
}
