package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A release whose connection {@code pg_terminate_backend} kills just before it is sent is run again
 * on a fresh connection: it reports {@code true} for a lease still held, and {@code false}, as the
 * SPI asks, for one that had already expired.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresRetriedReleaseTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  @Test
  void aRetriedReleaseTellsAHeldLeaseFromAnExpiredOne() throws Exception {
    String table = TestDatabases.table("pg_retried_release");
    String url = TestDatabases.postgresUrl("table=" + table);
    String application = "retried-release-" + UUID.randomUUID().toString().substring(0, 8);
    TerminatingDataSource connections =
        new TerminatingDataSource(JdbcUrl.driverUrl(url), application);
    String release = releaseStatement(table);
    try (JdbcLockProvider provider =
        JdbcLockProvider.builder(connections).table(table).timeout(TIMEOUT).build()) {
      LeaseGrant held =
          provider.tryAcquire(LockRequest.of("held", Duration.ofSeconds(30))).orElseThrow();
      connections.terminateBefore(release);
      assertThat(provider.release(held)).as("held until released").isTrue();
      assertThat(connections.terminated()).isPositive();
      assertThat(provider.status("held").holder()).isNull();

      LeaseGrant expiring =
          provider.tryAcquire(LockRequest.of("expired", Duration.ofMillis(300))).orElseThrow();
      await()
          .pollDelay(Duration.ofMillis(800))
          .atMost(Duration.ofSeconds(10))
          .until(() -> provider.status("expired").holder() == null);
      connections.terminateBefore(release);
      assertThat(provider.release(expiring)).as("expired before its release").isFalse();
      assertThat(connections.terminated()).as("both releases were run again").isGreaterThan(1);
    }
  }

  private static String releaseStatement(String table) {
    String channel =
        new JdbcSettings(
                table, true, TIMEOUT, JdbcSettings.DEFAULT_MAX_POLL, JdbcSettings.DEFAULT_RETENTION)
            .channel();
    return LockSql.of(Dialect.of("postgresql").orElseThrow(), table, channel).release();
  }
}
