package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections killed with {@code pg_terminate_backend} and a restart of the database, on a
 * PostgreSQL server of this class's own: a lease lives in its row, so it is kept through both
 * (within its TTL), and the provider recovers without being created again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresOutageTest {
  private static TestPostgres server;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void startServer() {
    server = TestPostgres.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** A provider whose connections carry {@code application}, so that they can be terminated. */
  private static JdbcLockProvider provider(String application) {
    return JdbcLockProvider.create(
        server.serverUrl("table=pg_outage&ApplicationName=" + application));
  }

  private static LeaseGrant take(JdbcLockProvider provider, String lockId, Duration ttl) {
    return provider.tryAcquire(LockRequest.of(lockId, ttl)).orElseThrow();
  }

  /** Terminates every backend of {@code application}; returns how many. */
  private static int terminate(String application) throws SQLException {
    try (Connection admin = server.admin();
        Statement statement = admin.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE application_name = '"
                    + application
                    + "'")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  @Test
  void killedConnectionsLoseNoLeaseAndTheNextCallsWork() throws Exception {
    try (JdbcLockProvider holder = provider("outage-holder");
        JdbcLockProvider other = provider("outage-other")) {
      LeaseGrant grant = take(holder, "killed", Duration.ofSeconds(30));

      assertThat(terminate("outage-holder")).as("backends terminated").isPositive();

      Optional<LeaseGrant> renewed = holder.renew(grant, Duration.ofSeconds(30));
      assertThat(renewed).as("renewed on a fresh connection").isPresent();
      assertThat(other.tryAcquire(LockRequest.of("killed", Duration.ofSeconds(5)))).isEmpty();
      assertThat(other.status("killed").holder().fencingToken()).isEqualTo(grant.fencingToken());
      assertThat(holder.release(renewed.get())).isTrue();
      assertThat(other.tryAcquire(LockRequest.of("killed", Duration.ofSeconds(5)))).isPresent();
    }
  }

  @Test
  void aWaiterIsWokenAfterItsListeningConnectionWasKilled() throws Exception {
    try (JdbcLockProvider holder = provider("listen-holder");
        JdbcLockProvider waiter = provider("listen-waiter")) {
      LeaseGrant held = take(holder, "listened", Duration.ofSeconds(60));
      Future<Optional<LeaseGrant>> waiting =
          HandOff.startWaiting(
              pool, waiter, "listened", Duration.ofSeconds(30), Duration.ofSeconds(60));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> waiter.listener() != null && waiter.listener().listening());

      assertThat(terminate("listen-waiter")).isPositive();
      await().atMost(Duration.ofSeconds(10)).until(() -> HandOff.listening(waiter, "listened"));

      HandOff handOff = HandOff.release(holder, held, waiting, Duration.ofSeconds(10));
      assertThat(handOff.took())
          .as("hand-off after the listener reconnected")
          .isLessThan(Duration.ofSeconds(1));
      assertThat(handOff.grant().fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(waiter.release(handOff.grant())).isTrue();
    }
  }

  @Test
  void aRestartedDatabaseKeepsTheLeaseAndTheProviderRecovers() throws Exception {
    try (JdbcLockProvider provider = provider("restart")) {
      LeaseGrant grant = take(provider, "restarted", Duration.ofSeconds(60));
      server.stop();
      try {
        assertThatThrownBy(() -> provider.renew(grant, Duration.ofSeconds(60)))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("renew of lock 'restarted'");
      } finally {
        server.startServer();
      }
      Optional<LeaseGrant>[] renewed = new Optional[1];
      await()
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptionsInstanceOf(LockProviderException.class)
          .until(
              () -> {
                renewed[0] = provider.renew(grant, Duration.ofSeconds(60));
                return true;
              });
      assertThat(renewed[0]).as("the lease outlived the restart").isPresent();
      assertThat(provider.status("restarted").holder().fencingToken())
          .isEqualTo(grant.fencingToken());
      assertThat(provider.release(renewed[0].get())).isTrue();
      LeaseGrant next = take(provider, "restarted", Duration.ofSeconds(5));
      assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
      provider.release(next);
    }
  }
}
