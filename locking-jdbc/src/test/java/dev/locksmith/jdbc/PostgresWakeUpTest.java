package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.FaultProxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * LISTEN/NOTIFY: a waiter in another client is woken by the release's notification, far sooner than
 * its poll interval (set to 10 s here, so that polling cannot explain the hand-off).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresWakeUpTest {
  private static final int ROUNDS = 20;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void aReleaseWakesAWaiterInAnotherClientWithinMilliseconds() throws Exception {
    String table = TestDatabases.table("pg_wake");
    String url = TestDatabases.postgresUrl("table=" + table);
    List<Long> micros = new ArrayList<>();
    try (JdbcLockProvider holder = JdbcLockProvider.create(url);
        JdbcLockProvider waiter = JdbcLockProvider.create(url + "&maxPoll=10s")) {
      for (int round = 0; round < ROUNDS; round++) {
        String id = "wake-" + round;
        LeaseGrant held = holder.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).get();
        Future<Optional<LeaseGrant>> waiting =
            HandOff.startWaiting(pool, waiter, id, Duration.ofSeconds(5), Duration.ofSeconds(20));
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(2))
            .until(() -> HandOff.listening(waiter, id));
        HandOff handOff = HandOff.release(holder, held, waiting, Duration.ofSeconds(15));
        micros.add(TimeUnit.NANOSECONDS.toMicros(handOff.took().toNanos()));
        assertThat(waiter.release(handOff.grant())).isTrue();
      }
    }
    Collections.sort(micros);
    long p50 = micros.get(ROUNDS / 2);
    long max = micros.get(ROUNDS - 1);
    System.out.printf(
        "PostgreSQL LISTEN/NOTIFY hand-off over %d rounds: p50 %.2f ms, max %.2f ms%n",
        ROUNDS, p50 / 1000.0, max / 1000.0);
    assertThat(p50).as("median hand-off, µs").isLessThan(100_000);
    assertThat(max).as("slowest hand-off, µs, against a 10 s poll interval").isLessThan(2_000_000);
  }

  @Test
  void providersNamingTheTableWithAndWithoutItsSchemaWakeEachOthersWaiters() throws Exception {
    String table = TestDatabases.table("pg_wake_names");
    String url = TestDatabases.postgresUrl("table=" + table);
    String qualified = TestDatabases.postgresUrl("table=public." + table);
    try (JdbcLockProvider holder = JdbcLockProvider.create(qualified);
        JdbcLockProvider waiter = JdbcLockProvider.create(url + "&maxPoll=10s")) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of("named", Duration.ofSeconds(30))).get();
      Future<Optional<LeaseGrant>> waiting =
          HandOff.startWaiting(
              pool, waiter, "named", Duration.ofSeconds(5), Duration.ofSeconds(20));
      await().atMost(Duration.ofSeconds(10)).until(() -> HandOff.listening(waiter, "named"));
      // Without the notification the waiter would sleep for the holder's 30 s.
      HandOff handOff = HandOff.release(holder, held, waiting, Duration.ofSeconds(5));
      assertThat(waiter.release(handOff.grant())).isTrue();
    }
  }

  @Test
  void aLeaseShortenedToItsMinimumHoldWakesItsWaitersToWaitForTheNewEnd() throws Exception {
    String table = TestDatabases.table("pg_wake_short");
    String url = TestDatabases.postgresUrl("table=" + table);
    try (JdbcLockProvider holder = JdbcLockProvider.create(url);
        JdbcLockProvider waiter = JdbcLockProvider.create(url + "&maxPoll=10s")) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of("short", Duration.ofSeconds(60))).get();
      Future<Optional<LeaseGrant>> waiting =
          HandOff.startWaiting(
              pool, waiter, "short", Duration.ofSeconds(5), Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(10)).until(() -> HandOff.listening(waiter, "short"));
      // What the engine does when a call ends before its minimum hold: the lease now ends soon.
      assertThat(holder.renew(held, Duration.ofMillis(300))).isPresent();
      LeaseGrant next = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(waiter.release(next)).isTrue();
    }
  }

  @Test
  void aProviderOverADataSourceListensThroughAConnectionOfThatDataSource() throws Exception {
    String table = TestDatabases.table("pg_wake_ds");
    String url = TestDatabases.postgresUrl("table=" + table);
    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
    config.setJdbcUrl(JdbcUrl.driverUrl(url));
    config.setMaximumPoolSize(3);
    try (com.zaxxer.hikari.HikariDataSource dataSource =
            new com.zaxxer.hikari.HikariDataSource(config);
        JdbcLockProvider holder = JdbcLockProvider.create(url);
        JdbcLockProvider waiter =
            JdbcLockProvider.builder(dataSource)
                .table(table)
                .maxPoll(Duration.ofSeconds(10))
                .build()) {
      LeaseGrant held = holder.tryAcquire(LockRequest.of("ds", Duration.ofSeconds(30))).get();
      Future<Optional<LeaseGrant>> waiting =
          HandOff.startWaiting(pool, waiter, "ds", Duration.ofSeconds(5), Duration.ofSeconds(20));
      // While the waiter waits, the one connection it holds from the pool is the listening one.
      await()
          .alias("the waiter listens through one connection of the data source")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  HandOff.listening(waiter, "ds")
                      && dataSource.getHikariPoolMXBean().getActiveConnections() == 1);
      HandOff handOff = HandOff.release(holder, held, waiting, Duration.ofSeconds(15));
      assertThat(handOff.took())
          .as("woken by the notification, not a 10 s poll")
          .isLessThan(Duration.ofSeconds(2));
      assertThat(waiter.release(handOff.grant())).isTrue();
      waiter.close();
      // Every connection of the pool at once, the one that listened among them.
      List<Connection> all = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          all.add(dataSource.getConnection());
        }
        for (Connection connection : all) {
          try (Statement statement = connection.createStatement();
              ResultSet channels =
                  statement.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
            channels.next();
            assertThat(channels.getInt(1)).as("channels a pooled connection listens on").isZero();
          }
        }
      } finally {
        for (Connection connection : all) {
          connection.close();
        }
      }
    }
  }

  @Test
  void aListeningConnectionDroppedInSilenceIsNoticedAndListensAgainOnceThePathIsBack()
      throws Exception {
    String table = TestDatabases.table("pg_wake_silent");
    String url = TestDatabases.postgresUrl("table=" + table);
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider holder = JdbcLockProvider.create(url);
        JdbcLockProvider waiter = Urls.throughProxy(url, proxy, "&timeout=1s")) {
      String id = "silent";
      LeaseGrant held = holder.tryAcquire(LockRequest.of(id, Duration.ofSeconds(60))).get();
      HandOff.startWaiting(pool, waiter, id, Duration.ofSeconds(30), Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(20)).until(() -> HandOff.listening(waiter, id));

      // As a firewall that drops idle connections without a word: reads just time out.
      proxy.freeze(FaultProxy.Direction.TO_SERVER);
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      await()
          .alias("the listener notices its connection is dead, so that waiters poll")
          .atMost(Duration.ofSeconds(20))
          .until(() -> !waiter.listener().listening());

      proxy.thaw();
      await().atMost(Duration.ofSeconds(30)).until(() -> waiter.listener().listening());
      assertThat(holder.release(held)).isTrue();
    }
  }
}
