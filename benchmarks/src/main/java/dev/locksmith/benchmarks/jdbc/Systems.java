package dev.locksmith.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.jdbc.JdbcLockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The systems compared on one database: each one a lock that can be taken without waiting and
 * released. Every system has a pool of its own of {@link #POOL} connections.
 */
final class Systems {
  /** Connections in each system's pool (the JDBC provider's default pool size). */
  static final int POOL = 4;

  /** The TTL / {@code lockAtMostFor} of every lock taken here. */
  static final Duration TTL = Duration.ofSeconds(30);

  private Systems() {}

  /** One lock held by a system. */
  interface Held {
    /** Releases it. */
    void release();
  }

  /** How long ShedLock's retry loop pauses between attempts (it has no waiting of its own). */
  static final Duration RETRY_BACKOFF = Duration.ofMillis(10);

  /** A lock that a caller may take at once if free, or wait for. */
  interface Lock extends AutoCloseable {
    /** Takes the lock {@code name} if it is free. */
    Optional<Held> tryLock(String name);

    /**
     * Waits up to {@code wait} for the lock: by default a retry loop that tries, then pauses {@link
     * #RETRY_BACKOFF}, as a ShedLock user has to write.
     */
    default Optional<Held> lock(String name, Duration wait) {
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        Optional<Held> held = tryLock(name);
        if (held.isPresent() || System.nanoTime() - deadline >= 0) {
          return held;
        }
        LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
      }
    }

    @Override
    void close();
  }

  /** {@code lock} as a latency loop's contender: it keeps the one lock it holds. */
  static Contender contender(Lock lock) {
    return new Contender() {
      private @Nullable Held held;

      @Override
      public boolean tryLock(String key) {
        return hold(lock.tryLock(key));
      }

      @Override
      public boolean lock(String key, Duration wait) {
        return hold(lock.lock(key, wait));
      }

      private boolean hold(Optional<Held> taken) {
        held = taken.orElse(null);
        return taken.isPresent();
      }

      @Override
      public void unlock() {
        Held taken = held;
        if (taken == null) {
          throw new IllegalStateException("no lock is held");
        }
        held = null;
        taken.release();
      }

      @Override
      public void close() {
        lock.close();
      }
    };
  }

  /** A pool of {@link #POOL} connections onto {@code url} (a plain JDBC URL). */
  static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(POOL);
    config.setMinimumIdle(POOL);
    return new HikariDataSource(config);
  }

  /** Locksmith's JDBC provider over a pool of its own, through the provider SPI. */
  static Lock locksmith(String url) {
    HikariDataSource pool = pool(url);
    JdbcLockProvider provider = JdbcLockProvider.builder(pool).table("bench_locksmith").build();
    return new Lock() {
      @Override
      public Optional<Held> tryLock(String name) {
        Optional<LeaseGrant> grant = provider.tryAcquire(LockRequest.of(name, TTL));
        return grant.map(g -> () -> provider.release(g));
      }

      @Override
      public Optional<Held> lock(String name, Duration wait) {
        try {
          Optional<LeaseGrant> grant = provider.acquire(LockRequest.of(name, TTL), wait);
          return grant.map(g -> () -> provider.release(g));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.empty();
        }
      }

      @Override
      public void close() {
        provider.close();
        pool.close();
      }
    };
  }

  /**
   * ShedLock's {@code JdbcTemplateLockProvider} with its defaults (the host's clock) or {@code
   * usingDbTime()}, on a table made with the DDL its README gives for PostgreSQL.
   */
  static Lock shedLock(String url, boolean dbTime) throws SQLException {
    HikariDataSource pool = pool(url);
    String table = dbTime ? "bench_shedlock_dbtime" : "bench_shedlock";
    execute(
        pool,
        "CREATE TABLE IF NOT EXISTS "
            + table
            + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
            + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
    JdbcTemplateLockProvider.Configuration.Builder builder =
        JdbcTemplateLockProvider.Configuration.builder()
            .withJdbcTemplate(new JdbcTemplate(pool))
            .withTableName(table);
    if (dbTime) {
      builder.usingDbTime();
    }
    LockProvider provider = new JdbcTemplateLockProvider(builder.build());
    return new Lock() {
      @Override
      public Optional<Held> tryLock(String name) {
        Optional<SimpleLock> lock =
            provider.lock(new LockConfiguration(Instant.now(), name, TTL, Duration.ZERO));
        return lock.map(l -> l::unlock);
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  /**
   * The baseline on PostgreSQL: the least a table lock costs, one {@code INSERT ... ON CONFLICT DO
   * UPDATE ... WHERE} (taken only when the row's lease ended, on the database's clock) and one
   * {@code UPDATE} that ends the lease, each in autocommit on a pooled connection. No owner check,
   * no fencing token. The row is kept, as both providers keep theirs: a {@code DELETE} instead
   * leaves a dead index entry per cycle on the one key, and the baseline slows down run by run
   * until a vacuum.
   */
  static Lock raw(String url) throws SQLException {
    HikariDataSource pool = pool(url);
    execute(
        pool,
        "CREATE TABLE IF NOT EXISTS bench_raw (name VARCHAR(255) NOT NULL PRIMARY KEY,"
            + " until_ts TIMESTAMPTZ NOT NULL)");
    String take =
        "INSERT INTO bench_raw (name, until_ts) VALUES (?, now() + interval '30 seconds')"
            + " ON CONFLICT (name) DO UPDATE SET until_ts = EXCLUDED.until_ts"
            + " WHERE bench_raw.until_ts <= now()";
    return new Lock() {
      @Override
      public Optional<Held> tryLock(String name) {
        try (Connection connection = pool.getConnection();
            PreparedStatement statement = connection.prepareStatement(take)) {
          statement.setString(1, name);
          if (statement.executeUpdate() == 0) {
            return Optional.empty();
          }
        } catch (SQLException e) {
          throw new IllegalStateException("raw take of " + name + " failed", e);
        }
        return Optional.of(() -> end(pool, name));
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  private static void end(HikariDataSource pool, String name) {
    try (Connection connection = pool.getConnection();
        PreparedStatement statement =
            connection.prepareStatement("UPDATE bench_raw SET until_ts = now() WHERE name = ?")) {
      statement.setString(1, name);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("raw release of " + name + " failed", e);
    }
  }

  private static void execute(HikariDataSource pool, String sql) throws SQLException {
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
