package dev.locksmith.benchmarks.jdbc;

import dev.locksmith.benchmarks.load.Percentiles;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded latency loops over {@link Systems.Lock}s: uncontended lock+unlock, and the hand-off of a
 * hot key between two contenders with pools of their own (as two processes would have).
 */
final class Latencies {
  /** How long a holder keeps the lock in a hand-off round, so that the other is waiting. */
  static final Duration HOLD = Duration.ofMillis(5);

  private Latencies() {}

  /**
   * A bounded run's figures.
   *
   * @param percentiles the samples' percentiles
   * @param overlaps hand-offs whose grant came before the release (must be 0)
   */
  record Run(Percentiles percentiles, int overlaps) {}

  /**
   * {@code warmup} then up to {@code samples} uncontended lock+unlock pairs on one key, or as many
   * as fit in {@code maxTime}.
   */
  static Run lockUnlock(Systems.Lock lock, int warmup, int samples, Duration maxTime) {
    long[] nanos = new long[samples];
    long end = System.nanoTime() + maxTime.toNanos();
    int n = 0;
    for (int i = 0; i < warmup + samples && System.nanoTime() - end < 0; i++) {
      long start = System.nanoTime();
      lock.tryLock("bench:pair")
          .orElseThrow(() -> new IllegalStateException("a free lock was refused"))
          .release();
      if (i >= warmup) {
        nanos[n++] = System.nanoTime() - start;
      }
    }
    return new Run(Percentiles.of(Arrays.copyOf(nanos, n)), 0);
  }

  /**
   * Uncontended lock+unlock pairs of every lock, in {@code rounds} rounds that take turns ({@code
   * perRound} pairs of each lock per round, after 200 warm-up pairs of each); a lock stops when it
   * has spent {@code maxTime}.
   */
  static Map<String, Percentiles> interleaved(
      Map<String, Systems.Lock> locks, int rounds, int perRound, Duration maxTime) {
    Map<String, long[]> samples = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<String, Long> spent = new LinkedHashMap<>();
    locks.forEach(
        (name, lock) -> {
          lockUnlock(lock, 200, 0, maxTime);
          samples.put(name, new long[rounds * perRound]);
          counts.put(name, 0);
          spent.put(name, 0L);
        });
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, Systems.Lock> entry : locks.entrySet()) {
        String name = entry.getKey();
        long[] nanos = samples.get(name);
        int n = counts.get(name);
        long used = spent.get(name);
        for (int i = 0; i < perRound && used < maxTime.toNanos(); i++) {
          long start = System.nanoTime();
          entry
              .getValue()
              .tryLock("bench:pair")
              .orElseThrow(() -> new IllegalStateException(name + " refused a free lock"))
              .release();
          long took = System.nanoTime() - start;
          nanos[n++] = took;
          used += took;
        }
        counts.put(name, n);
        spent.put(name, used);
      }
    }
    Map<String, Percentiles> result = new LinkedHashMap<>();
    samples.forEach(
        (name, nanos) -> result.put(name, Percentiles.of(Arrays.copyOf(nanos, counts.get(name)))));
    return result;
  }

  /**
   * Hand-offs of one key between {@code a} and {@code b}, taking turns: the holder takes the lock,
   * the other starts waiting for it ({@link Systems.Lock#lock}), the holder keeps it {@link #HOLD}
   * and releases; a sample is from just before the release call to the waiter's grant. {@code
   * warmup} rounds, then up to {@code samples}, or as many as fit in {@code maxTime}.
   */
  static Run handOff(
      Systems.Lock a,
      Systems.Lock b,
      ExecutorService pool,
      int warmup,
      int samples,
      Duration maxTime)
      throws Exception {
    Systems.Lock[] locks = {a, b};
    long[] nanos = new long[samples];
    long end = System.nanoTime() + maxTime.toNanos();
    int n = 0;
    int overlaps = 0;
    String key = "bench:hot";
    for (int i = 0; i < warmup + samples && System.nanoTime() - end < 0; i++) {
      Systems.Lock holder = locks[i % 2];
      Systems.Lock waiter = locks[1 - i % 2];
      Systems.Held held =
          holder.tryLock(key).orElseThrow(() -> new IllegalStateException("hot key not free"));
      CompletableFuture<Granted> granted =
          CompletableFuture.supplyAsync(
              () -> {
                Systems.Held next =
                    waiter
                        .lock(key, Duration.ofSeconds(10))
                        .orElseThrow(() -> new IllegalStateException("no hand-off in 10 s"));
                return new Granted(System.nanoTime(), next);
              },
              pool);
      LockSupport.parkNanos(HOLD.toNanos()); // the holder's work
      long released = System.nanoTime();
      held.release();
      Granted grant = granted.get(15, TimeUnit.SECONDS);
      grant.held().release();
      if (grant.at() < released) {
        overlaps++;
      }
      if (i >= warmup) {
        nanos[n++] = grant.at() - released;
      }
    }
    return new Run(Percentiles.of(Arrays.copyOf(nanos, n)), overlaps);
  }

  private record Granted(long at, Systems.Held held) {}
}
