package dev.locksmith.spring.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.micrometer.MicrometerLockListener;
import dev.locksmith.testkit.jdbc.TestPostgres;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code locksmith.url=jdbc} on a real PostgreSQL: the default provider is built from the
 * application's {@code DataSource} bean, here a {@code TransactionAwareDataSourceProxy} (which
 * hands out the transaction's connection), and its lock operations still commit at once and survive
 * a rollback of the business work around them.
 */
@SpringBootTest(
    classes = PostgresDataSourceBootTest.App.class,
    properties = {"locksmith.url=jdbc", "locksmith.jdbc.table=boot_pg_locks"})
class PostgresDataSourceBootTest {
  private static final String URL = TestPostgres.url("");

  @Autowired Locksmith locksmith;
  @Autowired Business business;
  @Autowired JdbcTemplate jdbc;
  @Autowired MeterRegistry meters;
  @Autowired ConfigurableApplicationContext context;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("test.database-url", () -> URL);
  }

  @Test
  void defaultProviderIsOverTheApplicationDataSource() {
    LockProvider provider = locksmith.providers().get("");
    assertThat(provider).isInstanceOf(JdbcLockProvider.class);
    assertThat(((JdbcLockProvider) provider).table()).isEqualTo("boot_pg_locks");
    assertThat(provider.description()).contains("application DataSource");
  }

  @Test
  void lockTakenInsideATransactionCommitsAtOnceAndOutlivesItsRollback() {
    jdbc.execute("CREATE TABLE IF NOT EXISTS boot_pg_work (id VARCHAR(64) PRIMARY KEY)");

    assertThatThrownBy(() -> business.lockThenFail("job-1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("business failure");

    Taken taken = business.taken();
    assertThat(taken).isNotNull();
    // Seen on another connection while the transaction was still open: committed at once.
    assertThat(taken.committedOwner()).isEqualTo(taken.lease().ownerToken());
    assertThat(taken.workVisibleOutside()).isFalse();
    // The business row went with the rollback; the lock did not.
    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM boot_pg_work", Integer.class)).isZero();
    LockProvider provider = locksmith.providers().get("");
    assertThat(provider.status(taken.lease().lockId()).currentHolder())
        .hasValueSatisfying(
            holder -> assertThat(holder.fencingToken()).isEqualTo(taken.lease().fencingToken()));
    taken.lease().close();
    assertThat(provider.status(taken.lease().lockId()).currentHolder()).isEmpty();
  }

  @Test
  void lockedMethodIsCountedAndHealthIsUp() {
    String lockId = business.locked();
    assertThat(lockId).isEqualTo("pg-job:a");
    assertThat(locksmith.providers().get("").status(lockId).currentHolder()).isEmpty();
    assertThat(
            meters
                .get(MicrometerLockListener.ACQUIRE)
                .tag("name", "pg-job")
                .tag("outcome", "acquired")
                .tag("provider", "default")
                .timer()
                .count())
        .isEqualTo(1);
    CompositeHealthContributor health =
        context.getBean("locksmithHealthContributor", CompositeHealthContributor.class);
    HealthIndicator indicator = (HealthIndicator) health.getContributor("default");
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    assertThat(indicator.health().getDetails().get("provider").toString())
        .contains("application DataSource");
  }

  /** What the transactional method saw of its lock before it failed. */
  record Taken(Lease lease, String committedOwner, boolean workVisibleOutside) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    HikariDataSource pool(Environment environment) {
      HikariDataSource pool = new HikariDataSource();
      pool.setJdbcUrl(environment.getRequiredProperty("test.database-url"));
      pool.setMaximumPoolSize(4);
      return pool;
    }

    /** The application's pool behind a transaction-aware proxy, as some applications use it. */
    @Bean
    @Primary
    DataSource dataSource(HikariDataSource pool) {
      return new TransactionAwareDataSourceProxy(pool);
    }

    @Bean
    Business business(Locksmith locksmith, JdbcTemplate jdbc) {
      return new Business(locksmith, jdbc);
    }
  }

  /** Business work in a transaction that takes a lock, and a locked method. */
  public static class Business {
    private final Locksmith locksmith;
    private final JdbcTemplate jdbc;
    volatile @Nullable Taken taken;

    Business(Locksmith locksmith, JdbcTemplate jdbc) {
      this.locksmith = locksmith;
      this.jdbc = jdbc;
    }

    /** What {@link #lockThenFail} saw (read through the proxy, so a method). */
    public @Nullable Taken taken() {
      return taken;
    }

    @Transactional
    public void lockThenFail(String id) {
      jdbc.update("INSERT INTO boot_pg_work (id) VALUES (?)", id);
      Lease lease =
          locksmith.acquire(
              LockOptions.named("tx-job").withKey(id).withTtl(Duration.ofSeconds(30)));
      taken = new Taken(lease, committedOwner(lease.lockId()), committedWork(id));
      throw new IllegalStateException("business failure");
    }

    @DistributedLock(name = "pg-job", key = "'a'")
    public String locked() {
      return Locks.current().lockId();
    }

    private static String committedOwner(String lockId) {
      return committed(
          "SELECT owner_token FROM boot_pg_locks WHERE lock_id = ?",
          lockId,
          row -> row.next() ? row.getString(1) : "no row");
    }

    private static boolean committedWork(String id) {
      return committed(
          "SELECT COUNT(*) FROM boot_pg_work WHERE id = ?",
          id,
          row -> {
            row.next();
            return row.getInt(1) > 0;
          });
    }

    /** Runs {@code sql} with one parameter on a connection of its own: sees only what committed. */
    private static <T> T committed(String sql, String parameter, Rows<T> read) {
      try (Connection other = DriverManager.getConnection(URL);
          PreparedStatement query = other.prepareStatement(sql)) {
        query.setString(1, parameter);
        try (ResultSet row = query.executeQuery()) {
          return read.apply(row);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Reads a query's result. */
    @FunctionalInterface
    private interface Rows<T> {
      T apply(ResultSet rows) throws SQLException;
    }
  }
}
