package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.StoreLifecycle;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
  private static final Duration TTL = Duration.ofSeconds(30);
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

  @Test
  void aSweepHeldUpOnOneEndedRowLeavesLiveLeasesAndNewLocksFree() throws Exception {
    String table = TestDatabases.table("maria_sweep");
    String sweepUrl = TestDatabases.mariaDbUrl("table=" + table);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (JdbcLockProvider provider = JdbcLockProvider.create(sweepUrl);
        Connection blocker = DriverManager.getConnection(JdbcUrl.driverUrl(sweepUrl));
        Connection admin = DriverManager.getConnection(JdbcUrl.driverUrl(sweepUrl));
        Statement adminStatement = admin.createStatement()) {
      LeaseGrant live = provider.tryAcquire(LockRequest.of("a-live", TTL)).orElseThrow();
      provider.release(provider.tryAcquire(LockRequest.of("z-ended", TTL)).orElseThrow());
      assertThat(provider.sweep()).as("after the first grant's sweep, nothing to sweep").isZero();
      // Ended two hours ago, past the retention: the sweep's to delete.
      adminStatement.executeUpdate(
          "UPDATE "
              + table
              + " SET expires_us = expires_us - 7200000000 WHERE lock_id = 'z-ended'");
      // Someone (an operator, a status query in a transaction) has that row locked.
      blocker.setAutoCommit(false);
      try (Statement locking = blocker.createStatement()) {
        locking.executeQuery(
            "SELECT lock_id FROM " + table + " WHERE lock_id = 'z-ended' FOR UPDATE");
      }
      Future<Integer> sweeping = pool.submit(provider::sweep);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                try (ResultSet waits =
                    adminStatement.executeQuery(
                        "SELECT COUNT(*) FROM information_schema.innodb_trx"
                            + " WHERE trx_state = 'LOCK WAIT'")) {
                  waits.next();
                  return waits.getInt(1) > 0;
                }
              });

      assertThat(provider.renew(live, TTL)).as("the live lease renews").isPresent();
      LeaseGrant fresh = provider.tryAcquire(LockRequest.of("m-new", TTL)).orElseThrow();
      assertThat(provider.release(fresh)).isTrue();
      blocker.rollback();
      int swept = sweeping.get(10, TimeUnit.SECONDS);
      assertThat(swept + provider.sweep()).as("the ended row, once free").isEqualTo(1);
      assertThat(provider.release(live)).isTrue();
    } finally {
      pool.shutdownNow();
      TestDatabases.dropTable(sweepUrl, table);
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
