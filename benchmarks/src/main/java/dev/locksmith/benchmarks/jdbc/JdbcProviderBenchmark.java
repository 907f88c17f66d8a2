package dev.locksmith.benchmarks.jdbc;

import dev.locksmith.benchmarks.BenchmarkDefaults;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.sql.SQLException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Uncontended lock+unlock on one key, one thread, on PostgreSQL (the URL of the system property
 * {@value #URL_PROPERTY}, else {@code LOCKSMITH_TEST_POSTGRES_URL}, else a server of the fork's
 * own, see {@link TestPostgres}): Locksmith's JDBC provider through its SPI, ShedLock's {@code
 * JdbcTemplateLockProvider} with and without {@code usingDbTime()}, and the {@code raw} baseline
 * ({@link Systems#raw}). Sample time, so JMH reports p50 and p99 besides the mean. {@link
 * JdbcComparison} runs it and prints the ratios.
 */
@BenchmarkMode(Mode.SampleTime)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
public class JdbcProviderBenchmark extends BenchmarkDefaults {
  /**
   * The system property with the PostgreSQL URL to use, set by {@link JdbcComparison} so that every
   * fork measures the same server.
   */
  public static final String URL_PROPERTY = "locksmith.bench.postgresUrl";

  /** The system under test. */
  @Param({"raw", "locksmith", "shedlock", "shedlock-dbtime"})
  public String system;

  private Systems.Lock lock;

  /** Opens the system's pool onto the server. */
  @Setup(Level.Trial)
  public void setUp() throws SQLException {
    String given = System.getProperty(URL_PROPERTY);
    String url = given != null ? given : TestPostgres.url("");
    lock =
        switch (system) {
          case "raw" -> Systems.raw(url);
          case "locksmith" -> Systems.locksmith(url);
          case "shedlock" -> Systems.shedLock(url, false);
          case "shedlock-dbtime" -> Systems.shedLock(url, true);
          default -> throw new IllegalArgumentException("unknown system '" + system + "'");
        };
  }

  /** Closes the pool. */
  @TearDown(Level.Trial)
  public void tearDown() {
    lock.close();
  }

  /** One uncontended lock+unlock; fails the run if the free lock was refused. */
  @Benchmark
  public boolean lockUnlock() {
    Systems.Held held =
        lock.tryLock("bench:uncontended")
            .orElseThrow(() -> new IllegalStateException(system + " refused a free lock"));
    held.release();
    return true;
  }
}
