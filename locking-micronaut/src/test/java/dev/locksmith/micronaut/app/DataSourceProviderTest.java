package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.testkit.jdbc.TestPostgres;
import io.micronaut.context.ApplicationContext;
import io.micronaut.core.type.Argument;
import io.micronaut.data.connection.ConnectionOperations;
import io.micronaut.data.connection.jdbc.advice.DelegatingDataSource;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code locksmith.url: jdbc} in a real Micronaut context: the default provider is {@code
 * locking-jdbc} over the application's {@link DataSource} bean, on H2 and on a real PostgreSQL; its
 * lock operations commit at once on connections of their own, whatever the caller's transaction
 * does; without a DataSource bean the start fails saying so.
 */
class DataSourceProviderTest {

  private static String databaseUrl(String database) {
    return database.equals("h2")
        ? "jdbc:h2:mem:micronaut-ds;DB_CLOSE_DELAY=-1"
        : TestPostgres.url("");
  }

  private static ApplicationContext start(String database, String table) {
    return start("jdbc", database, table);
  }

  private static ApplicationContext start(String url, String database, String table) {
    return ApplicationContext.run(
        Map.of(
            "locksmith.url",
            url,
            "locksmith.jdbc.table",
            table,
            "test.database-url",
            databaseUrl(database)),
        "datasource");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void lockedMethodRunsOnTheApplicationDataSourceWithMetersAndHealth(String database)
      throws Exception {
    String table = "mn_locks_" + database;
    try (ApplicationContext context = start(database, table)) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      LockProvider provider = locksmith.providers().get("");
      assertThat(provider)
          .isInstanceOf(JdbcLockProvider.class)
          .isSameAs(locksmith.providers().get("jdbc"));
      assertThat(((JdbcLockProvider) provider).table()).isEqualTo(table);

      DayJobChecks.holdsEachDayAlone(
          context,
          "ds-job",
          context.getBean(DayJobs.class)::onDataSource,
          () -> {
            try (Connection outside = DriverManager.getConnection(databaseUrl(database))) {
              assertThat(committedOwner(outside, table, "ds-job:mon")).isNotEqualTo("no row");
            }
          });
      HealthResult health = HealthChecks.locksmith(context);
      assertThat(health.getStatus()).isEqualTo(HealthStatus.UP);
      assertThat(String.valueOf(health.getDetails())).contains("application DataSource");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void lockTakenDuringATransactionCommitsAtOnceAndOutlivesItsRollback(String database)
      throws Exception {
    String table = "mn_tx_locks_" + database;
    String url = databaseUrl(database);
    try (ApplicationContext context = start(database, table);
        Connection outside = DriverManager.getConnection(url);
        Statement outsideStatement = outside.createStatement()) {
      // Micronaut Data wraps the bean in a proxy whose connections are those of the current
      // connection scope; the provider uses the pool behind it.
      assertThat(context.getBean(DataSource.class)).isInstanceOf(DelegatingDataSource.class);
      outsideStatement.execute("CREATE TABLE IF NOT EXISTS mn_work (id VARCHAR(64) PRIMARY KEY)");
      Locksmith locksmith = context.getBean(Locksmith.class);

      // The business work runs in Micronaut's connection scope, on the connection that the
      // DataSource proxy hands out within it: a provider using the proxy would write its row there.
      ConnectionOperations<Connection> connections =
          context.getBean(Argument.of(ConnectionOperations.class, Connection.class));
      Lease lease =
          connections.executeWrite(
              status -> {
                Connection business = status.getConnection();
                try (Statement statement = business.createStatement()) {
                  business.setAutoCommit(false);
                  statement.execute("INSERT INTO mn_work (id) VALUES ('w1')");
                  Lease taken = locksmith.acquire(LockOptions.named("tx-job"));
                  // Committed at once: seen on another connection while the business work is open.
                  assertThat(committedOwner(outside, table, taken.lockId()))
                      .isEqualTo(taken.ownerToken());
                  assertThat(count(outsideStatement)).isZero();
                  business.rollback();
                  business.setAutoCommit(true);
                  return taken;
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      try {
        assertThat(count(outsideStatement)).isZero();
        assertThat(locksmith.providers().get("").status(lease.lockId()).currentHolder())
            .hasValueSatisfying(
                holder -> assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken()));
      } finally {
        lease.close();
      }
      outsideStatement.execute("DROP TABLE mn_work");
    }
  }

  private static int count(Statement statement) throws SQLException {
    try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM mn_work")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  @Test
  void jdbcInAnyCaseIsTheApplicationDataSource() {
    // As in Spring; it was read as a provider URL and refused as an unknown scheme.
    try (ApplicationContext context = start("JDBC", "h2", "mn_locks_upper")) {
      LockProvider provider = context.getBean(Locksmith.class).providers().get("");
      assertThat(provider).isInstanceOf(JdbcLockProvider.class);
      assertThat(((JdbcLockProvider) provider).table()).isEqualTo("mn_locks_upper");
    }
  }

  @Test
  void withoutADataSourceBeanTheStartFailsSayingSo() {
    assertThatThrownBy(() -> ApplicationContext.run(Map.of("locksmith.url", "jdbc"), "none"))
        .satisfies(
            failure ->
                assertThat(ConfigurationFailures.cause(failure).getMessage())
                    .contains("locksmith.url: jdbc uses the application's DataSource bean")
                    .contains("defines none"));
  }

  @Test
  void aMisspeltCreateTableFailsTheStartNamingTheProperty() {
    // Bound as a boolean, "flase" was false: the table was not created, and every lock failed
    // later.
    assertThatThrownBy(
            () ->
                ApplicationContext.run(
                        Map.of(
                            "locksmith.url",
                            "jdbc",
                            "locksmith.jdbc.create-table",
                            "flase",
                            "test.database-url",
                            databaseUrl("h2")),
                        "datasource")
                    .getBean(dev.locksmith.core.Locksmith.class))
        .hasStackTraceContaining("locksmith.jdbc.create-table: 'flase' is not true or false");
  }

  @Test
  void aNamedProviderCannotUseTheDataSource() {
    assertThatThrownBy(
            () ->
                ApplicationContext.run(
                    Map.of(
                        "locksmith.url", "mem:named-jdbc",
                        "locksmith.providers.audit.url", "jdbc"),
                    "none"))
        .satisfies(
            failure ->
                assertThat(ConfigurationFailures.cause(failure).getMessage())
                    .startsWith("locksmith.providers.audit.url: jdbc")
                    .contains("only the default provider"));
  }

  /** The committed owner token of a lock's row, read on a connection outside the context. */
  private static String committedOwner(Connection outside, String table, String lockId)
      throws SQLException {
    try (PreparedStatement query =
        outside.prepareStatement("SELECT owner_token FROM " + table + " WHERE lock_id = ?")) {
      query.setString(1, lockId);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? row.getString(1) : "no row";
      }
    }
  }
}
