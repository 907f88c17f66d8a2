package dev.locksmith.jdbc;

/**
 * MySQL 8 and MariaDB: {@code INSERT ... ON DUPLICATE KEY UPDATE}, then the row read back. The
 * clock is {@code UTC_TIMESTAMP(6)}, which no session time zone or daylight-saving change moves.
 * The lock id and the owner token are binary so that values differing in case or trailing spaces
 * stay distinct: under the default collations a token in another case took over a live lease.
 */
final class MariaDbDialect implements Dialect {

  @Override
  public String name() {
    return "MySQL/MariaDB";
  }

  @Override
  public String nowMicros() {
    return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
  }

  @Override
  public String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (lock_id VARBINARY(255) NOT NULL PRIMARY KEY,"
        + " owner_token VARBINARY(64) NOT NULL,"
        + " owner VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,"
        + " fencing_token BIGINT NOT NULL,"
        + " expires_us BIGINT NOT NULL) ENGINE=InnoDB";
  }

  /**
   * Assignments run left to right, each seeing the ones before: every one has the same condition,
   * evaluated on the old row until {@code owner_token} is assigned; for {@code expires_us}, last,
   * the condition holds exactly when the owner token was just set to the requester's.
   */
  @Override
  public String acquire(String table) {
    String now = nowMicros();
    String taken = "(expires_us <= VALUES(fencing_token) OR owner_token = VALUES(owner_token))";
    return "INSERT INTO "
        + table
        + " (lock_id, owner_token, owner, fencing_token, expires_us) VALUES (?, ?, ?, "
        + now
        + ", "
        + now
        + " + ?) ON DUPLICATE KEY UPDATE"
        + " owner = IF("
        + taken
        + ", VALUES(owner), owner),"
        + " fencing_token = IF("
        + taken
        + ", GREATEST(fencing_token + 1, VALUES(fencing_token)), fencing_token),"
        + " owner_token = IF("
        + taken
        + ", VALUES(owner_token), owner_token),"
        + " expires_us = IF("
        + taken
        + ", VALUES(expires_us), expires_us)";
  }
}
