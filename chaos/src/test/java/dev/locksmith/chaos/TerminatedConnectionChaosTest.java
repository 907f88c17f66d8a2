package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 8 (PostgreSQL): every database connection of a holder JVM and of a waiting JVM is killed
 * with {@code pg_terminate_backend} while the holder holds (its pool and, for the waiter, its
 * {@code LISTEN} connection). A lease lives in a row, not in a connection: the holder must renew it
 * on a new connection and keep it, the waiter must not get the lock meanwhile, and when the holder
 * releases, the waiter must be woken within {@link #HANDOFF_BOUND} (its listener reconnected; a
 * lost wake-up would wait for the holder's lease to run out, 3 s).
 */
class TerminatedConnectionChaosTest {
  static final String TITLE = "Connections killed with pg_terminate_backend";
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration HANDOFF_BOUND = Duration.ofSeconds(1);
  private static final int ROUNDS = 5;
  private static final String WAITER = "chaos-waiter";

  @ParameterizedTest(name = "{0}")
  @EnumSource(names = {"JDBC"})
  void aHolderWhoseConnectionsAreKilledKeepsItsLeaseAndHandsItOn(Backend.Kind kind)
      throws Exception {
    Path dir = WorkDirs.fresh("8-terminate-" + kind.name().toLowerCase());
    List<String> violations = new ArrayList<>();
    List<Long> renewals = new ArrayList<>();
    List<Long> handOffs = new ArrayList<>();
    int holderBackends = 0;
    int waiterBackends = 0;
    try (Backend backend = kind.start(dir, false);
        Client waiter = Client.connect(backend.url() + "&ApplicationName=" + WAITER)) {
      for (int round = 0; round < ROUNDS; round++) {
        String lockId = "terminated-" + round;
        String application = "chaos-holder-" + round;
        try (KilledHolder.Started started =
            KilledHolder.start(
                dir, round, backend.url() + "&ApplicationName=" + application, lockId, TTL)) {
          ChildJvm holder = started.jvm();
          long holderToken = started.token();
          Async.Call<Lease> waiting = KilledHolder.waitFor(waiter, lockId, round);
          Readiness.awaitWaiting(waiter, lockId, 1, List.of(waiting.thread()));

          try (Connection admin = backend.admin()) {
            long killedAtDbMicros = dbNowMicros(admin);
            long killedAt = System.nanoTime();
            int holders = terminate(admin, application);
            int waiters = terminate(admin, WAITER);
            holderBackends += holders;
            waiterBackends += waiters;
            if (holders == 0) {
              violations.add("round " + round + ": no connection of the holder to terminate");
            }
            if (waiters == 0) {
              violations.add("round " + round + ": no connection of the waiter to terminate");
            }
            // A renewal after the kill moves the lease's end past the kill + TTL on the
            // database's clock; it can only have run on a new connection.
            await()
                .atMost(TTL.multipliedBy(3))
                .pollInterval(Duration.ofMillis(10))
                .until(
                    () ->
                        waiting.result().isDone()
                            || expiresMicros(admin, lockId)
                                > killedAtDbMicros + TTL.toNanos() / 1000);
            renewals.add(System.nanoTime() - killedAt);
            long rowToken = fencingToken(admin, lockId);
            if (waiting.result().isDone() || rowToken != holderToken) {
              violations.add(
                  "round "
                      + round
                      + ": the holder's lease did not survive its killed connections (row token "
                      + rowToken
                      + ", holder's "
                      + holderToken
                      + ", waiter done "
                      + waiting.result().isDone()
                      + ")");
            }
          }
          holder.send("stop");
          long stoppedAt = System.nanoTime();
          try (Lease lease = waiting.result().get(30, TimeUnit.SECONDS)) {
            long handOff = System.nanoTime() - stoppedAt;
            handOffs.add(handOff);
            violations.addAll(
                started.judgeTakeOver(
                    round,
                    lease,
                    handOff,
                    "the holder was told to release",
                    HANDOFF_BOUND,
                    "the holder's"));
          }
          int exit = holder.awaitExit(Duration.ofSeconds(30));
          if (exit != 0) {
            violations.add("round " + round + ": the holder exited with " + exit);
          }
        }
      }
    }
    Figures figures =
        new Figures()
            .millis("ttl", TTL)
            .put("rounds", ROUNDS)
            .put("holder connections terminated", holderBackends)
            .put("waiter connections terminated", waiterBackends)
            .latencies("kill -> holder's renewal on a new connection", renewals)
            .millis("hand-off bound", HANDOFF_BOUND)
            .latencies("stop -> waiter acquires", handOffs);
    ChaosReport.record(8, TITLE, kind, figures, violations);
    assertThat(violations).as("logs in %s", dir).isEmpty();
    assertThat(handOffs).hasSize(ROUNDS);
  }

  private static int terminate(Connection admin, String application) throws SQLException {
    try (PreparedStatement statement =
        admin.prepareStatement(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE application_name = ?")) {
      statement.setString(1, application);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }

  private static long dbNowMicros(Connection admin) throws SQLException {
    try (Statement statement = admin.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static long expiresMicros(Connection admin, String lockId) throws SQLException {
    return column(admin, "expires_us", lockId);
  }

  private static long fencingToken(Connection admin, String lockId) throws SQLException {
    return column(admin, "fencing_token", lockId);
  }

  private static long column(Connection admin, String column, String lockId) throws SQLException {
    try (PreparedStatement statement =
        admin.prepareStatement(
            "SELECT " + column + " FROM " + Backend.JDBC_TABLE + " WHERE lock_id = ?")) {
      statement.setString(1, lockId);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    }
  }
}
