package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An application's pool set to an isolation stricter than READ COMMITTED (Hikari's {@code
 * transactionIsolation}, a database's {@code default_transaction_isolation}): lock calls racing on
 * one lock are answered granted or busy, never failed. PostgreSQL refused the take's upsert under
 * REPEATABLE READ and SERIALIZABLE ("could not serialize access due to concurrent update") after
 * four retries; the provider now takes its locks at READ COMMITTED, and gives the connection back
 * at the pool's isolation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StrictIsolationTest {
  private static final int THREADS = 8;
  private static final int ROUNDS = 150;
  private static final Duration BOUND = Duration.ofSeconds(30);

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE"})
  void racingTakesOnPostgresAreGrantedOrBusyNeverFailed(String isolation) throws Exception {
    String table = TestDatabases.table("pg_isolation");
    String url = TestDatabases.postgresUrl("table=" + table);
    try {
      assertRacingTakesSucceed(JdbcUrl.driverUrl(url), table, isolation);
    } finally {
      TestDatabases.dropTable(url, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE"})
  void racingTakesOnH2AreGrantedOrBusyNeverFailed(String isolation) throws Exception {
    Path dir = Files.createTempDirectory("locksmith-h2-isolation");
    assertRacingTakesSucceed(
        "jdbc:h2:file:" + dir.resolve("locks"), TestDatabases.table("h2_isolation"), isolation);
  }

  private static void assertRacingTakesSucceed(String driverUrl, String table, String isolation)
      throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(driverUrl);
    config.setMaximumPoolSize(THREADS);
    config.setTransactionIsolation(isolation);
    config.setPoolName("strict-isolation");
    ExecutorService racers = Executors.newFixedThreadPool(THREADS);
    try (HikariDataSource pool = new HikariDataSource(config);
        JdbcLockProvider provider = JdbcLockProvider.builder(pool).table(table).build()) {
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      AtomicInteger granted = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      long end = System.nanoTime() + BOUND.toNanos();
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(
            racers.submit(
                () -> {
                  start.await();
                  for (int round = 0; round < ROUNDS && System.nanoTime() < end; round++) {
                    try {
                      Optional<LeaseGrant> grant =
                          provider.tryAcquire(LockRequest.of("hot", Duration.ofSeconds(10)));
                      if (grant.isPresent()) {
                        granted.incrementAndGet();
                        provider.release(grant.get());
                      }
                    } catch (RuntimeException e) {
                      failures.add(e);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> racer : done) {
        racer.get(BOUND.toSeconds() + 30, TimeUnit.SECONDS);
      }
      assertThat(failures).as("lock calls failed under %s", isolation).isEmpty();
      assertThat(granted.get()).as("grants").isPositive();
      try (Connection connection = pool.getConnection()) {
        assertThat(connection.getTransactionIsolation())
            .as("a connection goes back at the pool's isolation")
            .isEqualTo(
                isolation.equals("TRANSACTION_SERIALIZABLE")
                    ? Connection.TRANSACTION_SERIALIZABLE
                    : Connection.TRANSACTION_REPEATABLE_READ);
      }
    } finally {
      racers.shutdownNow();
    }
  }
}
