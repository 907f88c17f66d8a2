package dev.locksmith.jdbc;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A quick, bounded measurement (not a test): for each {@code jdbc:} URL given, uncontended
 * tryAcquire+release on one client, and the hand-off from a release to a waiter in another client.
 * At most 2000 lock+unlock pairs and 50 hand-offs per URL, and at most 30 s each.
 *
 * <p>Arguments: one or more provider URLs; {@code own-postgres} stands for a PostgreSQL server
 * started for the run ({@link TestPostgres}).
 */
public final class JdbcFigures {
  private static final int PAIRS = 2000;
  private static final int HAND_OFFS = 50;
  private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

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
      for (int i = 0; i < 200; i++) { // warm-up
        a.release(a.tryAcquire(LockRequest.of("figures-warm", Duration.ofSeconds(10))).get());
      }
      List<Long> pairs = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < PAIRS && System.nanoTime() - start < LIMIT_NANOS; i++) {
        long t0 = System.nanoTime();
        LeaseGrant grant =
            a.tryAcquire(LockRequest.of("figures-pair", Duration.ofSeconds(10))).get();
        a.release(grant);
        pairs.add(System.nanoTime() - t0);
      }
      List<Long> handOffs = new ArrayList<>();
      start = System.nanoTime();
      for (int i = 0; i < HAND_OFFS && System.nanoTime() - start < LIMIT_NANOS; i++) {
        String id = "figures-hand-off-" + i;
        LeaseGrant held = a.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).get();
        Future<Optional<LeaseGrant>> waiting =
            pool.submit(
                () ->
                    b.acquire(LockRequest.of(id, Duration.ofSeconds(10)), Duration.ofSeconds(20)));
        while (b.localWaiters(id) == 0 && !waiting.isDone()) {
          Thread.onSpinWait();
        }
        // Let the waiter settle into its wait, as a real waiter would be.
        TimeUnit.MILLISECONDS.sleep(150);
        long t0 = System.nanoTime();
        a.release(held);
        LeaseGrant taken = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
        handOffs.add(System.nanoTime() - t0);
        b.release(taken);
      }
      System.out.printf(
          "%s%n  lock+unlock (tryAcquire+release, one thread, %d pairs): p50 %.2f ms, p99 %.2f ms,"
              + " %.0f pairs/s%n  hand-off to a waiter in another client (%d): p50 %.2f ms,"
              + " p99 %.2f ms, max %.2f ms%n",
          url,
          pairs.size(),
          percentile(pairs, 50),
          percentile(pairs, 99),
          pairs.size() / (pairs.stream().mapToLong(Long::longValue).sum() / 1e9),
          handOffs.size(),
          percentile(handOffs, 50),
          percentile(handOffs, 99),
          percentile(handOffs, 100));
    }
  }

  private static double percentile(List<Long> nanos, int percent) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    int index = Math.min(sorted.size() - 1, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1);
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
