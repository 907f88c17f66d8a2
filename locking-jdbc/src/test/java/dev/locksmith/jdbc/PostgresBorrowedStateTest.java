package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections of an application's pool go back as they were borrowed (auto-commit and isolation),
 * the listening one included: a pool that does not reset them (Tomcat JDBC's default) hands them to
 * business code next.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresBorrowedStateTest {

  @Test
  void everyConnectionGoesBackWithAutoCommitAndIsolationAsBorrowed() throws Exception {
    String table = TestDatabases.table("pg_borrowed_state");
    String url = TestDatabases.postgresUrl("table=" + table);
    NonResettingPool pool = new NonResettingPool(JdbcUrl.driverUrl(url));
    ExecutorService waiters = Executors.newSingleThreadExecutor();
    try (JdbcLockProvider holder = JdbcLockProvider.create(url)) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of("state", Duration.ofSeconds(60))).get();
      try (JdbcLockProvider waiter = JdbcLockProvider.builder(pool).table(table).build()) {
        Future<Optional<LeaseGrant>> waiting =
            HandOff.startWaiting(
                waiters, waiter, "state", Duration.ofSeconds(30), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).until(() -> HandOff.listening(waiter, "state"));
        HandOff.release(holder, held, waiting, Duration.ofSeconds(10));
      }
      // The listening connection (the one unwrapped to read notifications) goes back when the
      // provider closes.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> pool.autoCommitOnReturn.stream().anyMatch(r -> r.startsWith("listener ")));
      assertThat(pool.autoCommitOnReturn)
          .hasSizeGreaterThanOrEqualTo(2)
          .allMatch(r -> r.endsWith(" false serializable"));
    } finally {
      waiters.shutdownNow();
    }
  }

  /**
   * Real connections with auto-commit off at SERIALIZABLE, recording their auto-commit and
   * isolation as they are given back.
   */
  private static final class NonResettingPool extends TestDataSource {
    /**
     * "listener false serializable", "statement false serializable": each connection given back,
     * its auto-commit and isolation.
     */
    final List<String> autoCommitOnReturn = new CopyOnWriteArrayList<>();

    private final String driverUrl;

    NonResettingPool(String driverUrl) {
      this.driverUrl = driverUrl;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection real = DriverManager.getConnection(driverUrl);
      real.setAutoCommit(false);
      real.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
      AtomicBoolean listener = new AtomicBoolean();
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().equals("unwrap")) {
                  listener.set(true); // only the listener unwraps, to read notifications
                }
                if (method.getName().equals("close") && !real.isClosed()) {
                  autoCommitOnReturn.add(
                      (listener.get() ? "listener " : "statement ")
                          + real.getAutoCommit()
                          + (real.getTransactionIsolation() == Connection.TRANSACTION_SERIALIZABLE
                              ? " serializable"
                              : " changed isolation"));
                }
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }
}
