package dev.locksmith.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes the rows whose lease ended more than the retention ago, found by a plain read and deleted
 * by key, so that it locks only the rows it deletes.
 */
final class EndedRowSweep {
  private static final int SWEEP_ROUNDS = 200;

  private final Connector connector;

  EndedRowSweep(Connector connector) {
    this.connector = connector;
  }

  /**
   * Deletes rows whose lease ended more than {@code retention} ago, in rounds of at most {@link
   * LockSql#SWEEP_BATCH} rows, {@link #SWEEP_ROUNDS} rounds at the most (the next sweep goes on);
   * returns how many.
   */
  int run(Duration retention) {
    long micros = LockIds.micros(retention);
    int deleted = 0;
    for (int round = 0; round < SWEEP_ROUNDS; round++) {
      int[] counts =
          connector.call(
              "sweep", "*", (connection, sql) -> sweepRound(connection, sql, micros), null);
      for (int count : counts) {
        deleted += count == Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, count);
      }
      if (counts.length < LockSql.SWEEP_BATCH) {
        break;
      }
    }
    return deleted;
  }

  private static int[] sweepRound(Connection connection, LockSql sql, long micros)
      throws SQLException {
    List<Object> ended = new ArrayList<>();
    try (PreparedStatement find = connection.prepareStatement(sql.sweepFind())) {
      find.setLong(1, micros);
      try (ResultSet rows = find.executeQuery()) {
        while (rows.next()) {
          ended.add(rows.getObject(1));
        }
      }
    }
    if (ended.isEmpty()) {
      return new int[0];
    }
    // By key, with the end time checked again: a row taken again since it was found stays.
    try (PreparedStatement delete = connection.prepareStatement(sql.sweep())) {
      for (Object lockId : ended) {
        delete.setObject(1, lockId);
        delete.setLong(2, micros);
        delete.addBatch();
      }
      return delete.executeBatch();
    }
  }
}
