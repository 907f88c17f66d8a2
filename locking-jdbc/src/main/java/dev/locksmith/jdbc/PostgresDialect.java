package dev.locksmith.jdbc;

/** PostgreSQL: {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING}. */
final class PostgresDialect implements Dialect {

  @Override
  public String name() {
    return "PostgreSQL";
  }

  /** The time the server received the statement, constant within it. */
  @Override
  public String nowMicros() {
    return "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000) AS BIGINT)";
  }

  @Override
  public String acquire(String table) {
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

  @Override
  public boolean acquireReturnsToken() {
    return true;
  }

  @Override
  public boolean notifies() {
    return true;
  }

  @Override
  public boolean needsReadCommitted() {
    return true;
  }
}
