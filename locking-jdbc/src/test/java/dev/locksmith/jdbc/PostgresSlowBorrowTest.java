package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over an application's {@code DataSource}, borrowing waits for that pool's own timeout and the
 * provider's {@code timeout} counts from the connection: a slow borrow does not leave the statement
 * a millisecond to run in.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresSlowBorrowTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @Test
  void aStatementAfterASlowBorrowGetsTheWholeTimeout() throws Exception {
    String table = TestDatabases.table("pg_slow_borrow");
    String url = TestDatabases.postgresUrl("table=" + table);
    try (FaultProxy proxy = Urls.proxyTo(url, 5432)) {
      // Each reply takes 30 ms: a statement sent with what was left of the timeout after the
      // borrow (nothing) would time out on this healthy connection.
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(30));
      DataSource slowPool =
          new SlowBorrows(
              JdbcUrl.driverUrl(Urls.through(url, proxy.port())), TIMEOUT.plusMillis(200));
      try (JdbcLockProvider provider =
          JdbcLockProvider.builder(slowPool).table(table).timeout(TIMEOUT).build()) {
        LeaseGrant grant =
            provider
                .tryAcquire(LockRequest.of("slow-borrow", Duration.ofSeconds(30)))
                .orElseThrow();
        assertThat(provider.renew(grant, Duration.ofSeconds(30))).isPresent();
        assertThat(provider.release(grant)).isTrue();
      }
    }
  }

  /** Real PostgreSQL connections, each handed out {@code delay} after it was asked for. */
  private static final class SlowBorrows extends TestDataSource {
    private final String driverUrl;
    private final Duration delay;

    SlowBorrows(String driverUrl, Duration delay) {
      this.driverUrl = driverUrl;
      this.delay = delay;
    }

    @Override
    public Connection getConnection() throws SQLException {
      try {
        Thread.sleep(delay.toMillis()); // a pool busy with other work
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while borrowing", e);
      }
      return DriverManager.getConnection(driverUrl);
    }
  }
}
