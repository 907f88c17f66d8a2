package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.StoreLifecycle;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The test kit's conformance suite on the MariaDB (or MySQL) of {@code LOCKSMITH_TEST_MARIADB_URL},
 * faults through a proxy. That server is shared and not the test's to restart: a restart kills
 * every connection of the test's providers to it ({@code KILL}), and losing the state drops the
 * table, the nearest an operator could do.
 */
class MariaDbConformanceTest extends JdbcConformance {
  private static final String TABLE = TestDatabases.table("maria_conformance");
  private static String url;

  @BeforeEach
  void findServer() {
    // Per test, so that without a server each test is reported skipped, not the class silently.
    url = TestDatabases.mariaDbUrl("table=" + TABLE);
  }

  @AfterAll
  static void dropTable() throws SQLException {
    if (url != null) {
      TestDatabases.dropTable(url, TABLE);
    }
  }

  @Test
  void aUrlWithoutADatabaseIsReportedAsSuchNotAsAnExhaustedPool() {
    String noDatabase = url.replaceFirst("^(jdbc:mariadb://[^/?]+)/[^?]*", "$1/");
    assertThat(noDatabase).as("the database left out of %s", url).doesNotContain("/test");
    try (LockProvider provider = LockProviders.create(noDatabase)) {
      assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("a", Duration.ofSeconds(10))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("No database selected")
          .hasMessageNotContaining("pool exhausted");
    }
  }

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(url);
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    return Urls.faultyPath(url, 3306);
  }

  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() throws SQLException {
        try (Connection admin = DriverManager.getConnection(JdbcUrl.driverUrl(url));
            Statement statement = admin.createStatement()) {
          var ids =
              statement.executeQuery(
                  "SELECT id FROM information_schema.processlist"
                      + " WHERE db = DATABASE() AND id <> CONNECTION_ID()");
          java.util.List<Long> all = new java.util.ArrayList<>();
          while (ids.next()) {
            all.add(ids.getLong(1));
          }
          for (long id : all) {
            try {
              statement.execute("KILL CONNECTION " + id);
            } catch (SQLException gone) {
              // ended meanwhile
            }
          }
        }
      }

      @Override
      public void restartLosingState() throws SQLException {
        try (Connection admin = DriverManager.getConnection(JdbcUrl.driverUrl(url));
            Statement statement = admin.createStatement()) {
          statement.execute("DROP TABLE " + TABLE);
        }
      }

      @Override
      public void restartWithPersistenceAdded() throws SQLException {
        restart(); // InnoDB always persists
      }
    };
  }
}
