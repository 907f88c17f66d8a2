package dev.locksmith.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.locksmith.testkit.jdbc.TestPostgres;
import java.time.Duration;
import java.util.UUID;

/** Where the tests find their databases. */
final class TestDatabases {
  /** The shortest TTL the README advises, which the conformance suites use. */
  static final Duration SHORT_TTL = Duration.ofSeconds(2);

  private TestDatabases() {}

  /** A table name unique to a test class run. */
  static String table(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  /**
   * The PostgreSQL URL ({@code LOCKSMITH_TEST_POSTGRES_URL}, without a query or with one) plus
   * {@code parameters}; without that variable, a server of this JVM's own, started once.
   */
  static String postgresUrl(String parameters) {
    return TestPostgres.url(parameters);
  }

  /** This JVM's own PostgreSQL server, started at the first call, stopped at exit. */
  static TestPostgres ownPostgres() {
    return TestPostgres.shared();
  }

  static boolean externalPostgres() {
    return TestPostgres.external();
  }

  /**
   * The MariaDB URL from {@code LOCKSMITH_TEST_MARIADB_URL} plus {@code parameters}. Without it the
   * calling class is skipped with a printed line, or fails on CI ({@code CI=true}).
   */
  static String mariaDbUrl(String parameters) {
    String url = System.getenv("LOCKSMITH_TEST_MARIADB_URL");
    if (url == null || url.isBlank()) {
      String message =
          "LOCKSMITH_TEST_MARIADB_URL is not set (e.g."
              + " jdbc:mariadb://127.0.0.1:3306/test?user=root): MariaDB tests not run";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new IllegalStateException(message + ", and CI=true requires them");
      }
      System.out.println("SKIPPED: " + message);
      assumeTrue(false, message);
    }
    return join(url.strip(), parameters);
  }

  /** Drops {@code table} if it exists, through the driver URL of {@code providerUrl}. */
  static void dropTable(String providerUrl, String table) throws java.sql.SQLException {
    try (java.sql.Connection connection =
            java.sql.DriverManager.getConnection(JdbcUrl.driverUrl(providerUrl));
        java.sql.Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  static String join(String url, String parameters) {
    if (parameters.isEmpty()) {
      return url;
    }
    return url + (url.contains("?") ? "&" : "?") + parameters;
  }
}
