package dev.locksmith.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole application with profile {@code postgres} on a PostgreSQL server of the test's own
 * ({@code LOCKSMITH_TEST_POSTGRES_URL}'s when set), in a fresh schema: the bank's tables and the
 * lock table {@code locksmith_locks} in the same database, from {@code locksmith.url=jdbc} alone.
 */
@SpringBootTest(
    webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {
      "bank.report.cron=* * * * * *",
      "bank.report.min-hold=300ms",
      "bank.transfer.wait-timeout=20s"
    })
@ActiveProfiles("postgres")
class PostgresBankSmokeTest extends RunningBank {
  private static final String SCHEMA =
      "bank_smoke_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", PostgresBankSmokeTest::freshSchema);
  }

  @Test
  void locksAreRowsOfTheBanksOwnDatabase() {
    assertThat(locksmith.providers().get("")).isInstanceOf(JdbcLockProvider.class);
    JdbcLockProvider provider = (JdbcLockProvider) locksmith.providers().get("");
    assertThat(provider.table()).isEqualTo("locksmith_locks");
    assertThat(provider.description()).contains("application DataSource");
  }

  @Test
  void concurrentTransfersTakeTheirLocksInTheDatabaseAndKeepEveryBalanceExact() throws Exception {
    sendTransfersAndCheckBalances();

    // The grants came from the lock table of the bank's database: one row per account lock,
    // holding the fencing token of that lock's last grant, and every grant had a token of its own.
    Map<String, Long> lockRows = lockTokens("account:%");
    assertThat(lockRows.keySet())
        .containsExactlyInAnyOrder("account:alice", "account:bob", "account:carol");
    Map<String, Long> fences = fences();
    for (String account : TransferLoad.ACCOUNTS) {
      String lockId = "account:" + account;
      List<Long> granted = events.tokens(lockId);
      assertThat(granted).isNotEmpty().doesNotHaveDuplicates();
      assertThat(lockRows.get(lockId))
          .isEqualTo(granted.stream().mapToLong(t -> t).max().orElse(0));
      // The account's last write was fenced with a token that this table handed out.
      assertThat(granted).contains(fences.get(account));
    }
    // Every request released both locks before it answered: no lease in the table is still live.
    assertThat(
            jdbc.queryForObject(
                "select count(*) from locksmith_locks where lock_id like 'account:%'"
                    + " and expires_us > floor(extract(epoch from clock_timestamp()) * 1000000)",
                Integer.class))
        .isZero();
  }

  @Test
  void reportSkipsWhileItsLockRowIsHeld() throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> job.runs() > 0);
    BalanceReport report = job.latest().orElseThrow();
    assertThat(report.lockId()).isEqualTo("bank-report");
    assertThat(report.totalCents())
        .isEqualTo(TransferLoad.INITIAL_CENTS * TransferLoad.ACCOUNTS.size());

    int busyBefore = events.busy("bank-report");
    try (Lease held = locksmith.acquire(LockOptions.named("bank-report"))) {
      // The row names this lease, as another instance of the bank would see it.
      assertThat(
              jdbc.queryForObject(
                  "select owner_token from locksmith_locks where lock_id = 'bank-report'",
                  String.class))
          .isEqualTo(held.ownerToken());
      assertThat(lockTokens("bank-report")).containsEntry("bank-report", held.fencingToken());
      assertThat(held.fencingToken()).isGreaterThan(report.fencingToken());
      int runsWhileHeld = job.runs();
      CompletableFuture.runAsync(job::report).get(20, TimeUnit.SECONDS);
      assertThat(job.runs()).isEqualTo(runsWhileHeld);
      assertThat(events.busy("bank-report")).isGreaterThan(busyBefore);
    }
  }

  private Map<String, Long> lockTokens(String lockIdPattern) {
    return TransferLoad.numbersById(
        jdbc,
        "select lock_id, fencing_token from locksmith_locks where lock_id like ?",
        lockIdPattern);
  }

  private Map<String, Long> fences() {
    return TransferLoad.numbersById(jdbc, "select id, fence from account");
  }

  /**
   * A schema of this run's own, so that a shared server's earlier runs change nothing here (the
   * property is read more than once).
   */
  private static String freshSchema() {
    try (Connection admin = DriverManager.getConnection(TestPostgres.url(""));
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + SCHEMA, e);
    }
    return TestPostgres.url("currentSchema=" + SCHEMA);
  }

  @TestConfiguration
  static class Listening {
    @Bean
    LockEvents lockEvents() {
      return new LockEvents();
    }
  }
}
