package dev.locksmith.testkit;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A quick, bounded measurement (not a test) of two clients of one lock store: uncontended
 * tryAcquire+release on the first, and the hand-off from a release by the first to a waiter in the
 * second. At most 2000 lock+unlock pairs and 50 hand-offs, at most 30 s each; the figures are
 * printed to standard output.
 *
 * @param queued whether a waiter is queued on a lock id yet, as the provider can tell
 * @param settle how long a queued waiter is left to settle into its wait before the release
 */
public record ProviderFigures(Predicate<String> queued, Duration settle) {
  private static final int PAIRS = 2000;
  private static final int HAND_OFFS = 50;
  private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final Duration QUEUE_LIMIT = Duration.ofSeconds(10);

  /**
   * Measures {@code a} and {@code b} and prints the figures under {@code label}.
   *
   * @param label the heading of the figures
   * @param a one client of the provider
   * @param b another client of the same store
   * @param pool runs the waiter of each hand-off
   * @throws Exception when a provider call fails
   */
  public void measure(String label, LockProvider a, LockProvider b, ExecutorService pool)
      throws Exception {
    for (int i = 0; i < 200; i++) { // warm-up
      a.release(a.tryAcquire(LockRequest.of("figures-warm", Duration.ofSeconds(10))).get());
    }
    List<Long> pairs = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < PAIRS && System.nanoTime() - start < LIMIT_NANOS; i++) {
      long t0 = System.nanoTime();
      LeaseGrant grant = a.tryAcquire(LockRequest.of("figures-pair", Duration.ofSeconds(10))).get();
      a.release(grant);
      pairs.add(System.nanoTime() - t0);
    }
    List<Long> handOffs = new ArrayList<>();
    start = System.nanoTime();
    for (int i = 0; i < HAND_OFFS && System.nanoTime() - start < LIMIT_NANOS; i++) {
      handOffs.add(handOff("figures-hand-off-" + i, a, b, pool));
    }
    System.out.printf(
        "%s%n  lock+unlock (tryAcquire+release, one thread, %d pairs): p50 %.2f ms, p99 %.2f ms,"
            + " %.0f pairs/s%n  hand-off to a waiter in another client (%d): p50 %.2f ms,"
            + " p99 %.2f ms, max %.2f ms%n",
        label,
        pairs.size(),
        percentile(pairs, 50),
        percentile(pairs, 99),
        pairs.size() / (pairs.stream().mapToLong(Long::longValue).sum() / 1e9),
        handOffs.size(),
        percentile(handOffs, 50),
        percentile(handOffs, 99),
        percentile(handOffs, 100));
  }

  /** Nanoseconds from the release by {@code a} to the grant to a waiter in {@code b}. */
  private long handOff(String id, LockProvider a, LockProvider b, ExecutorService pool)
      throws Exception {
    LeaseGrant held = a.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).get();
    Future<Optional<LeaseGrant>> waiting =
        pool.submit(
            () -> b.acquire(LockRequest.of(id, Duration.ofSeconds(10)), Duration.ofSeconds(20)));
    long until = System.nanoTime() + QUEUE_LIMIT.toNanos();
    while (!queued.test(id) && !waiting.isDone() && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(1);
    }
    TimeUnit.NANOSECONDS.sleep(settle.toNanos()); // as a real waiter would have settled
    long t0 = System.nanoTime();
    a.release(held);
    LeaseGrant taken = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
    long nanos = System.nanoTime() - t0;
    b.release(taken);
    return nanos;
  }

  private static double percentile(List<Long> nanos, int percent) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    int index = Math.min(sorted.size() - 1, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1);
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
