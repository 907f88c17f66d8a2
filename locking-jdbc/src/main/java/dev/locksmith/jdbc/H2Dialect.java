package dev.locksmith.jdbc;

/**
 * H2: a standard {@code MERGE ... USING}, then the row read back; ids and owner tokens compared
 * with case whatever the database's {@code IGNORECASE} setting.
 */
final class H2Dialect implements Dialect {

  @Override
  public String name() {
    return "H2";
  }

  @Override
  public String nowMicros() {
    return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(6)) * 1000000 AS BIGINT)";
  }

  /**
   * The standard table, its ids compared with case whatever the database's {@code IGNORECASE}
   * setting (which makes new text columns compare without it: {@code Job} and {@code job} would be
   * one lock).
   */
  @Override
  public String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (lock_id VARCHAR_CASESENSITIVE(255) NOT NULL PRIMARY KEY,"
        + " owner_token VARCHAR_CASESENSITIVE(64) NOT NULL,"
        + " owner VARCHAR(255) NOT NULL,"
        + " fencing_token BIGINT NOT NULL,"
        + " expires_us BIGINT NOT NULL)";
  }

  /** The standard form: H2 reads {@code LIMIT} only in some of its compatibility modes. */
  @Override
  public String firstRows(int rows) {
    return " FETCH FIRST " + rows + " ROWS ONLY";
  }

  @Override
  public String acquire(String table) {
    return "MERGE INTO "
        + table
        + " l USING (SELECT CAST(? AS VARCHAR(255)) lock_id, CAST(? AS VARCHAR(64)) owner_token,"
        + " CAST(? AS VARCHAR(255)) owner, "
        + nowMicros()
        + " now_us, CAST(? AS BIGINT) ttl_us) r"
        // A derived column is case-insensitive under IGNORECASE=TRUE, whatever its cast: each
        // comparison casts again.
        + " ON l.lock_id = CAST(r.lock_id AS VARCHAR_CASESENSITIVE(255))"
        + " WHEN MATCHED AND (l.expires_us <= r.now_us"
        + " OR l.owner_token = CAST(r.owner_token AS VARCHAR_CASESENSITIVE(64)))"
        + " THEN UPDATE SET owner_token = r.owner_token, owner = r.owner,"
        + " fencing_token = GREATEST(l.fencing_token + 1, r.now_us),"
        + " expires_us = r.now_us + r.ttl_us"
        + " WHEN NOT MATCHED THEN INSERT (lock_id, owner_token, owner, fencing_token, expires_us)"
        + " VALUES (r.lock_id, r.owner_token, r.owner, r.now_us, r.now_us + r.ttl_us)";
  }

  @Override
  public boolean missingTable(String sqlState, int vendorCode) {
    // Not found (42102), not found with candidates of another case (42103), not found in a
    // database with no table at all (42104).
    return Dialect.super.missingTable(sqlState, vendorCode)
        || (vendorCode >= 42102 && vendorCode <= 42104);
  }

  @Override
  public boolean needsReadCommitted() {
    return true;
  }
}
