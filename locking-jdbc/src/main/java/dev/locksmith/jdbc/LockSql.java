package dev.locksmith.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The statements of one table in one dialect. Renew and release are owner-checked: they match the
 * row only while the presented owner token and fencing token hold a live lease. A release ends the
 * lease by setting {@code expires_us} to now and keeps the row, so the fencing token stays on it.
 * {@code wakeWaiters} (PostgreSQL only) wakes the waiters of a lock id, as a release does.
 */
record LockSql(
    Dialect dialect,
    String table,
    String createTable,
    String acquire,
    String readBack,
    String remaining,
    String renew,
    String release,
    String releaseOwned,
    String status,
    String listHeld,
    String sweepFind,
    String sweep,
    @Nullable String wakeWaiters) {

  /** The most ended rows a sweep finds and deletes in one round. */
  static final int SWEEP_BATCH = 500;

  static LockSql of(Dialect dialect, String table, String channel) {
    String now = dialect.nowMicros();
    String release =
        "UPDATE "
            + table
            + " SET expires_us = "
            + now
            + " WHERE lock_id = ? AND owner_token = ? AND fencing_token = ? AND expires_us > "
            + now;
    // After a connection failure: ends the lease if this owner's row is still there, released by
    // the first run or not, and held until that run was sent (the last parameter, in microseconds
    // ago): a lease that had expired before is no longer held, and reported so.
    String releaseOwned =
        "UPDATE "
            + table
            + " SET expires_us = LEAST(expires_us, "
            + now
            + ") WHERE lock_id = ? AND owner_token = ? AND fencing_token = ? AND expires_us >= "
            + now
            + " - ?";
    if (dialect.notifies()) {
      String notify = "SELECT pg_notify('" + channel + "', lock_id) FROM r";
      release = "WITH r AS (" + release + " RETURNING lock_id) " + notify;
      releaseOwned = "WITH r AS (" + releaseOwned + " RETURNING lock_id) " + notify;
    }
    return new LockSql(
        dialect,
        table,
        dialect.createTable(table),
        dialect.acquire(table),
        "SELECT owner_token, fencing_token, expires_us - "
            + now
            + " FROM "
            + table
            + " WHERE lock_id = ?",
        "SELECT expires_us - " + now + " FROM " + table + " WHERE lock_id = ?",
        "UPDATE "
            + table
            + " SET expires_us = "
            + now
            + " + ? WHERE lock_id = ? AND owner_token = ? AND fencing_token = ? AND expires_us > "
            + now,
        release,
        releaseOwned,
        "SELECT owner, fencing_token, expires_us - "
            + now
            + " FROM "
            + table
            + " WHERE lock_id = ? AND expires_us > "
            + now,
        "SELECT lock_id, owner, fencing_token, expires_us - "
            + now
            + " FROM "
            + table
            + " WHERE expires_us > "
            + now
            + " ORDER BY lock_id",
        // Found by a plain read, which locks nothing, then deleted by key one row at a time: a
        // DELETE by the end time alone scans and, on InnoDB, locks every row of the table until it
        // ends, so one row held elsewhere stopped every renewal and take behind it.
        "SELECT lock_id FROM "
            + table
            + " WHERE expires_us < "
            + now
            + " - ?"
            + dialect.firstRows(SWEEP_BATCH),
        "DELETE FROM " + table + " WHERE lock_id = ? AND expires_us < " + now + " - ?",
        dialect.notifies() ? "SELECT pg_notify('" + channel + "', ?)" : null);
  }

  /** Whether releases return a row per released lease (PostgreSQL) instead of an update count. */
  boolean releaseReturnsRows() {
    return dialect.notifies();
  }
}
