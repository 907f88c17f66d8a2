package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The table (created on first use, or not, and the README's DDL), a provider over an application's
 * {@link javax.sql.DataSource} (its own connection, never the caller's transaction; an exhausted
 * pool), and fencing tokens after rows are deleted; on PostgreSQL and H2.
 */
class SchemaAndPoolTest {

  /** A test run on PostgreSQL and on H2, given the database's name. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "h2"})
  @interface OnPostgresAndH2 {}

  private static String driverUrl(String database) {
    return database.equals("postgresql")
        ? JdbcUrl.driverUrl(TestDatabases.postgresUrl(""))
        : "jdbc:h2:mem:schema-test;DB_CLOSE_DELAY=-1";
  }

  private static Dialect dialect(String database) {
    return Dialect.of(database).orElseThrow();
  }

  private static boolean tableExists(String database, String table) throws SQLException {
    try (Connection connection = DriverManager.getConnection(driverUrl(database));
        Statement statement = connection.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
        return rows.next();
      } catch (SQLException e) {
        return false;
      }
    }
  }

  private static boolean rowExists(String database, String table, String lockId)
      throws SQLException {
    try (Connection connection = DriverManager.getConnection(driverUrl(database));
        PreparedStatement select =
            connection.prepareStatement("SELECT count(*) FROM " + table + " WHERE lock_id = ?")) {
      select.setString(1, lockId);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() && rows.getInt(1) > 0;
      }
    }
  }

  private static void execute(String database, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(driverUrl(database));
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static LeaseGrant take(JdbcLockProvider provider, String lockId) {
    return provider.tryAcquire(LockRequest.of(lockId, Duration.ofSeconds(5))).get();
  }

  /** A provider URL onto {@code server} as {@code role}, for {@code table}. */
  private static String urlAs(TestPostgres server, String role, String table) {
    return "jdbc:postgresql://127.0.0.1:"
        + server.port()
        + "/postgres?user="
        + role
        + "&table="
        + table;
  }

  /** Asserts that {@code lockId} can be taken and released through {@code provider}. */
  private static void assertTakenAndReleased(JdbcLockProvider provider, String lockId) {
    assertThat(provider.release(take(provider, lockId))).isTrue();
  }

  /**
   * The README's {@code CREATE TABLE} under the comment line starting {@code -- heading}, for
   * {@code table}.
   */
  private static String readmeDdl(String heading, String table) throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf("\n-- " + heading);
    assertThat(start).as("the README's DDL for %s", heading).isNotNegative();
    String ddl = readme.substring(readme.indexOf('\n', start + 1) + 1, readme.indexOf(';', start));
    return ddl.replace("locksmith_locks", table);
  }

  private static JdbcLockProvider provider(String database, String parameters) {
    return JdbcLockProvider.create(TestDatabases.join(driverUrl(database), parameters));
  }

  @OnPostgresAndH2
  void theTableIsCreatedOnFirstUse(String database) throws Exception {
    String table = TestDatabases.table("auto");
    assertThat(tableExists(database, table)).isFalse();
    try (JdbcLockProvider provider = provider(database, "table=" + table)) {
      assertThat(tableExists(database, table)).as("not created before the first call").isFalse();
      LeaseGrant grant = take(provider, "a");
      assertThat(tableExists(database, table)).isTrue();
      assertThat(provider.release(grant)).isTrue();
    }
  }

  @OnPostgresAndH2
  void withCreateTableFalseAMissingTableIsNamedAndTheReadmeDdlWorks(String database)
      throws Exception {
    String table = TestDatabases.table("manual");
    try (JdbcLockProvider provider = provider(database, "createTable=false&table=" + table)) {
      assertThatThrownBy(() -> take(provider, "a"))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("table " + table + " does not exist and createTable=false");
      assertThat(tableExists(database, table)).isFalse();

      execute(database, readmeDdl(database.equals("h2") ? "H2" : "PostgreSQL", table));
      assertTakenAndReleased(provider, "a");
    }
  }

  @Test
  void theReadmeH2TableKeepsIdsDifferingInCaseDistinctInAnIgnoreCaseDatabase() throws Exception {
    // The README's H2 table had VARCHAR ids: in a database opened with IGNORECASE=TRUE, "Job" and
    // "job" were one lock.
    String table = TestDatabases.table("ignorecase");
    String url = "jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1;IGNORECASE=TRUE";
    try (Connection keep = DriverManager.getConnection(url);
        Statement statement = keep.createStatement();
        JdbcLockProvider provider =
            JdbcLockProvider.create(url + "?createTable=false&table=" + table)) {
      statement.execute(readmeDdl("H2", table));
      LeaseGrant upper = take(provider, "Job");
      LeaseGrant lower = take(provider, "job");
      assertThat(provider.release(upper)).isTrue();
      assertThat(provider.release(lower)).isTrue();
    }
  }

  @Test
  void anH2DatabaseWhoseOnlyTableIsDroppedGetsItBackOrNamesItMissing() throws Exception {
    // H2 says "database is empty" (42104), not "table not found" (42102), when no table is left.
    String lone = "jdbc:h2:mem:" + TestDatabases.table("lone") + ";DB_CLOSE_DELAY=-1";
    try (JdbcLockProvider provider = JdbcLockProvider.create(lone + "?table=lone");
        Connection keep = DriverManager.getConnection(lone);
        Statement statement = keep.createStatement()) {
      assertTakenAndReleased(provider, "a");
      statement.execute("DROP TABLE lone");
      assertTakenAndReleased(provider, "a");
    }
    String empty = "jdbc:h2:mem:" + TestDatabases.table("empty") + ";DB_CLOSE_DELAY=-1";
    try (JdbcLockProvider provider = JdbcLockProvider.create(empty + "?createTable=false");
        Connection keep = DriverManager.getConnection(empty)) {
      assertThatThrownBy(() -> take(provider, "a"))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("does not exist and createTable=false");
    }
  }

  @Test
  void aUserWithoutCreateRightsUsesATableAMigrationCreated() throws Exception {
    TestPostgres server = TestDatabases.ownPostgres();
    String table = TestDatabases.table("migrated");
    String role = "app_" + table;
    server.execute("CREATE ROLE " + role + " LOGIN");
    server.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    server.execute(new PostgresDialect().createTable(table));
    server.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON " + table + " TO " + role);
    try (JdbcLockProvider provider = JdbcLockProvider.create(urlAs(server, role, table))) {
      assertTakenAndReleased(provider, "m");
    }
  }

  @Test
  void aTableFoundLaterOnTheSearchPathIsUsedNotCreatedAgainInTheFirstSchema() throws Exception {
    TestPostgres server = TestDatabases.ownPostgres();
    String table = TestDatabases.table("searched");
    // A role with a schema of its own name: first on the default search path "$user", public.
    String role = "own_" + table;
    server.execute("CREATE ROLE " + role + " LOGIN");
    server.execute("CREATE SCHEMA " + role + " AUTHORIZATION " + role);
    server.execute(new PostgresDialect().createTable("public." + table));
    server.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON public." + table + " TO " + role);
    try (JdbcLockProvider migrated =
            JdbcLockProvider.create(server.serverUrl("table=public." + table));
        JdbcLockProvider provider = JdbcLockProvider.create(urlAs(server, role, table))) {
      LeaseGrant held =
          migrated.tryAcquire(LockRequest.of("s", Duration.ofSeconds(30))).orElseThrow();
      assertThat(provider.tryAcquire(LockRequest.of("s", Duration.ofSeconds(30))))
          .as("the same table as the migration's")
          .isEmpty();
      assertThat(migrated.release(held)).isTrue();
      assertTakenAndReleased(provider, "s");
    }
    try (Connection admin = server.admin();
        Statement statement = admin.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT to_regclass('" + role + "." + table + "') IS NULL")) {
      rows.next();
      assertThat(rows.getBoolean(1)).as("no second table in the role's schema").isTrue();
    }
  }

  @OnPostgresAndH2
  void fencingTokensKeepRisingAfterRowsAreDeleted(String database) throws Exception {
    String table = TestDatabases.table("deleted");
    try (JdbcLockProvider provider = provider(database, "table=" + table)) {
      LeaseGrant first = take(provider, "d");
      provider.release(first);
      LeaseGrant second = take(provider, "d");
      provider.release(second);
      assertThat(provider.sweep()).as("ended a moment ago: kept for the retention").isZero();
      execute(database, "DELETE FROM " + table);
      LeaseGrant third = take(provider, "d");
      assertThat(List.of(first.fencingToken(), second.fencingToken(), third.fencingToken()))
          .isSorted()
          .doesNotHaveDuplicates();
      provider.release(third);
    }
  }

  @OnPostgresAndH2
  void aSweepDeletesEveryRowEndedPastTheRetentionInRoundsAndKeepsTheRest(String database)
      throws Exception {
    String table = TestDatabases.table("sweep");
    try (JdbcLockProvider provider = provider(database, "table=" + table)) {
      LeaseGrant live = take(provider, "live");
      provider.release(take(provider, "ended-now"));
      assertThat(provider.sweep()).as("after the first grant's sweep, nothing to sweep").isZero();
      int ended = LockSql.SWEEP_BATCH * 2 + 1;
      try (Connection connection = DriverManager.getConnection(driverUrl(database));
          PreparedStatement insert =
              connection.prepareStatement("INSERT INTO " + table + " VALUES (?, 't', 'o', 1, 0)")) {
        for (int i = 0; i < ended; i++) {
          insert.setString(1, "ended-long-ago-" + i);
          insert.addBatch();
        }
        insert.executeBatch();
      }

      assertThat(provider.sweep()).as("three rounds").isEqualTo(ended);
      assertThat(provider.sweep()).isZero();
      try (Connection connection = DriverManager.getConnection(driverUrl(database));
          Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery("SELECT lock_id FROM " + table + " ORDER BY lock_id")) {
        List<String> kept = new ArrayList<>();
        while (rows.next()) {
          kept.add(rows.getString(1));
        }
        assertThat(kept)
            .as("the held row and the one ended within the retention")
            .containsExactly("ended-now", "live");
      }
      assertThat(provider.release(live)).isTrue();
    }
  }

  /** H2 reads LIMIT as a keyword only in some of its compatibility modes. */
  @ParameterizedTest(name = "MODE={0}")
  @ValueSource(strings = {"Regular", "Oracle", "MSSQLServer", "Derby", "Strict", "PostgreSQL"})
  void anH2DatabaseInAnyCompatibilityModeIsSweptToo(String mode) throws Exception {
    String url = "jdbc:h2:mem:sweep-" + mode + ";MODE=" + mode + ";DB_CLOSE_DELAY=-1";
    String table = TestDatabases.table("sweepmode");
    try (JdbcLockProvider provider = JdbcLockProvider.create(url + "?table=" + table)) {
      provider.release(take(provider, "created"));
      assertThat(provider.sweep()).as("after the first grant's sweep, nothing to sweep").isZero();
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement()) {
        statement.execute("INSERT INTO " + table + " VALUES ('ended-long-ago', 't', 'o', 1, 0)");
      }
      assertThat(provider.sweep()).isEqualTo(1);
      assertTakenAndReleased(provider, "created");
    }
  }

  @OnPostgresAndH2
  void aProvidersFirstGrantSweepsSoThatShortLivedProcessesSweepToo(String database)
      throws Exception {
    String table = TestDatabases.table("sweepfirst");
    try (JdbcLockProvider earlier = provider(database, "table=" + table)) {
      earlier.release(take(earlier, "created"));
    }
    try (Connection connection = DriverManager.getConnection(driverUrl(database));
        Statement statement = connection.createStatement()) {
      statement.execute("INSERT INTO " + table + " VALUES ('ended-long-ago', 't', 'o', 1, 0)");
    }
    // A process that lives less than the sweep interval (a CLI run, a batch job) and whose leases
    // end by their minimum hold (a renewal, not a release) swept nothing before.
    try (JdbcLockProvider provider = provider(database, "table=" + table + "&retention=1m")) {
      take(provider, "taken");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(rowExists(database, table, "ended-long-ago")).isFalse());
    }
  }

  @OnPostgresAndH2
  void aDataSourceProviderNeverJoinsTheCallersTransaction(String database) throws Exception {
    String table = TestDatabases.table("tx");
    try (HikariDataSource pool = pool(database, 3, Duration.ofSeconds(1));
        JdbcLockProvider provider = JdbcLockProvider.builder(pool).table(table).build();
        Connection business = pool.getConnection()) {
      business.setAutoCommit(false);
      try (Statement statement = business.createStatement()) {
        statement.execute("CREATE TABLE " + table + "_work (n INT)");
        statement.execute("INSERT INTO " + table + "_work VALUES (1)");
      }
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("tx", Duration.ofSeconds(30))).get();
      business.rollback();
      assertThat(provider.status("tx").holder())
          .as("the caller's rollback did not undo the lock")
          .isNotNull();
      assertThat(provider.status("tx").holder().fencingToken()).isEqualTo(grant.fencingToken());
      assertThat(provider.description()).contains("application DataSource");
      assertThat(provider.release(grant)).isTrue();
    }
  }

  @OnPostgresAndH2
  void anExhaustedPoolFailsWithinTheTimeoutAsTheProviderBeingDown(String database)
      throws Exception {
    String table = TestDatabases.table("exhausted");
    try (HikariDataSource pool = pool(database, 1, Duration.ofMillis(500));
        JdbcLockProvider provider =
            JdbcLockProvider.builder(pool).table(table).timeout(Duration.ofMillis(500)).build()) {
      try (Connection busy = pool.getConnection()) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> take(provider, "x"))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("acquire of lock 'x' failed")
            .hasMessageContaining("pool exhausted or database unreachable");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      }
      assertTakenAndReleased(provider, "x");
    }
  }

  private static HikariDataSource pool(String database, int size, Duration timeout) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(driverUrl(database));
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(timeout.toMillis());
    return new HikariDataSource(config);
  }
}
