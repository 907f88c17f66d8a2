package dev.locksmith.jdbc;

/**
 * PostgreSQL: {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING}, releases notified
 * with {@code pg_notify}. The clock is the time the server received the statement, constant within
 * it.
 */
final class PostgresDialect extends Dialect {

  PostgresDialect() {
    super(
        "PostgreSQL",
        "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000) AS BIGINT)",
        /* acquireReturnsToken= */ true,
        /* notifies= */ true);
  }

  @Override
  String acquire(String table) {
    return "INSERT INTO "
        + table
        + " AS l (lock_id, owner_token, owner, fencing_token, expires_us)"
        + " SELECT ?, ?, ?, n.now_us, n.now_us + ? FROM (SELECT "
        + nowMicros()
        + " AS now_us) n"
        + " ON CONFLICT (lock_id) DO UPDATE SET owner_token = EXCLUDED.owner_token,"
        + " owner = EXCLUDED.owner,"
        + " fencing_token = GREATEST(l.fencing_token + 1, EXCLUDED.fencing_token),"
        + " expires_us = EXCLUDED.expires_us"
        + " WHERE l.expires_us <= EXCLUDED.fencing_token OR l.owner_token = EXCLUDED.owner_token"
        + " RETURNING fencing_token";
  }
}
