package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.StoreLifecycle;
import java.io.IOException;
import java.sql.SQLException;

/**
 * The test kit's conformance suite on PostgreSQL, faults through a proxy between the client and the
 * server. On the test's own server the lifecycle cases restart it and wipe its data directory; on a
 * server from {@code LOCKSMITH_TEST_POSTGRES_URL}, which the test cannot restart, a restart
 * terminates every other backend ({@code pg_terminate_backend}) and losing the state drops the
 * table, the nearest an operator could do.
 */
class PostgresConformanceTest extends JdbcConformance {
  private static final String TABLE = TestDatabases.table("pg_conformance");

  private static String url() {
    return TestDatabases.postgresUrl("table=" + TABLE);
  }

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(url());
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    return Urls.faultyPath(url(), 5432);
  }

  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() throws IOException, SQLException {
        if (TestDatabases.externalPostgres()) {
          try (var admin = java.sql.DriverManager.getConnection(url());
              var statement = admin.createStatement()) {
            statement.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE pid <> pg_backend_pid() AND datname = current_database()"
                    + " AND usename = current_user");
          }
        } else {
          TestDatabases.ownPostgres().restart();
        }
      }

      @Override
      public void restartLosingState() throws IOException, SQLException {
        if (TestDatabases.externalPostgres()) {
          try (var admin = java.sql.DriverManager.getConnection(JdbcUrl.driverUrl(url()));
              var statement = admin.createStatement()) {
            statement.execute("DROP TABLE " + TABLE);
          }
        } else {
          TestDatabases.ownPostgres().restartLosingData();
        }
      }

      @Override
      public void restartWithPersistenceAdded() throws IOException, SQLException {
        restart(); // PostgreSQL always persists
      }
    };
  }
}
