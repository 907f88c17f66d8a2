package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter whose connections {@code pg_terminate_backend} kills while it waits, just as it reads
 * how long the holder has left, keeps waiting: that read is retried on a fresh connection like the
 * attempts, and the wait ends with a grant once the holder releases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresTerminatedWaiterTest {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void aWaiterWhoseBackendsAreTerminatedAsItReadsTheHoldersTimeLeftIsStillGranted()
      throws Exception {
    String table = TestDatabases.table("pg_terminated_waiter");
    String url = TestDatabases.postgresUrl("table=" + table);
    String application = "terminated-waiter-" + UUID.randomUUID().toString().substring(0, 8);
    TerminatingDataSource connections =
        new TerminatingDataSource(JdbcUrl.driverUrl(url), application);
    String lock = "terminated-waiter";
    try (JdbcLockProvider holder = JdbcLockProvider.create(url);
        HikariDataSource waiterPool = pool(connections);
        JdbcLockProvider waiter =
            JdbcLockProvider.builder(waiterPool).table(table).timeout(CALL_TIMEOUT).build()) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of(lock, Duration.ofSeconds(60))).get();
      Future<Optional<LeaseGrant>> waiting =
          HandOff.startWaiting(pool, waiter, lock, Duration.ofSeconds(30), WAIT);
      await().atMost(Duration.ofSeconds(20)).until(() -> HandOff.listening(waiter, lock));

      // Wake the waiter while the holder still holds: it tries, is refused, and reads how long
      // the holder has left, on a connection whose backend is terminated just before.
      LockSql sql = LockSql.of(Dialect.of("postgresql").orElseThrow(), table, "unused");
      connections.terminateBefore(sql.remaining());
      notifyWaiters(url, channel(table), LockIds.stored(lock));
      assertThat(connections.fired().await(20, TimeUnit.SECONDS))
          .as("the waiter read the holder's time left after being woken")
          .isTrue();
      assertThat(connections.terminated())
          .as("backends terminated: the waiter's connection and its listening one")
          .isGreaterThanOrEqualTo(2);

      // Still waiting (a failed wait would have ended the future and unregistered the waiter),
      // listening again on a fresh connection.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> waiting.isDone() || HandOff.listening(waiter, lock));
      assertStillWaiting(waiting);

      HandOff handOff = HandOff.release(holder, held, waiting, Duration.ofSeconds(10));
      assertThat(handOff.took()).as("hand-off after the release").isLessThan(Duration.ofSeconds(5));
      LeaseGrant granted = handOff.grant();
      assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(waiter.renew(granted, Duration.ofSeconds(30))).isPresent();
      assertThat(waiter.release(granted)).isTrue();
    } finally {
      TestDatabases.dropTable(url, table);
    }
  }

  /** The waiter's own pool, as an application would configure one, over the terminable source. */
  private static HikariDataSource pool(TerminatingDataSource connections) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(connections);
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(CALL_TIMEOUT.toMillis());
    config.setValidationTimeout(1000);
    config.setPoolName("terminated-waiter");
    return new HikariDataSource(config);
  }

  private static String channel(String table) {
    return new JdbcSettings(
            table,
            true,
            CALL_TIMEOUT,
            JdbcSettings.DEFAULT_MAX_POLL,
            JdbcSettings.DEFAULT_RETENTION)
        .channel();
  }

  /** A notification as a release sends, though nothing was released: it wakes the waiters. */
  private static void notifyWaiters(String url, String channel, String storedId) throws Exception {
    try (Connection connection = DriverManager.getConnection(JdbcUrl.driverUrl(url));
        PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
      notify.setString(1, channel);
      notify.setString(2, storedId);
      notify.executeQuery().close();
    }
  }

  /** Fails with the wait's own failure when the wait ended before the holder released. */
  private static void assertStillWaiting(Future<Optional<LeaseGrant>> waiting)
      throws InterruptedException {
    if (!waiting.isDone()) {
      return;
    }
    try {
      throw new AssertionError("the wait ended before the holder released, with " + waiting.get());
    } catch (ExecutionException e) {
      throw new AssertionError(
          "the wait failed after its backends were terminated: " + e.getCause(), e.getCause());
    }
  }
}
