package dev.locksmith.jdbc;

import dev.locksmith.testkit.ProviderFigures;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A quick, bounded measurement (not a test): for each {@code jdbc:} URL given, uncontended
 * tryAcquire+release on one client, and the hand-off from a release to a waiter in another client.
 * At most 2000 lock+unlock pairs and 50 hand-offs per URL, and at most 30 s each.
 *
 * <p>Arguments: one or more provider URLs; {@code own-postgres} stands for a PostgreSQL server
 * started for the run ({@link TestPostgres}).
 */
public final class JdbcFigures {
  private JdbcFigures() {}

  /** Measures each URL in turn and prints its figures. */
  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    TestPostgres server = null;
    try {
      for (String url : args) {
        if (url.equals("own-postgres")) {
          server = TestPostgres.start();
          url = server.serverUrl("table=figures");
        }
        measure(url, pool);
      }
    } finally {
      pool.shutdownNow();
      if (server != null) {
        server.close();
      }
    }
  }

  private static void measure(String url, ExecutorService pool) throws Exception {
    try (JdbcLockProvider a = JdbcLockProvider.create(url);
        JdbcLockProvider b = JdbcLockProvider.create(url)) {
      new ProviderFigures(id -> b.localWaiters(id) > 0, Duration.ofMillis(150))
          .measure(url, a, b, pool);
    }
  }
}
