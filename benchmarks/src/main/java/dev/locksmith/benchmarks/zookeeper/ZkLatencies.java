package dev.locksmith.benchmarks.zookeeper;

import dev.locksmith.benchmarks.load.Percentiles;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded latency loops over {@link ZkContenders.Contender}s: uncontended lock+unlock in rounds
 * that take turns, and the hand-off of a hot key between two contenders, each driven from a thread
 * of its own (Curator's mutex is thread-bound).
 */
final class ZkLatencies {
  /** How long a holder keeps the lock in a hand-off round, so that the other is waiting. */
  static final Duration HOLD = Duration.ofMillis(5);

  private ZkLatencies() {}

  /**
   * A bounded hand-off run's figures.
   *
   * @param percentiles release call -> the other's grant
   * @param overlaps grants that came before the release call (must be 0)
   */
  record Run(Percentiles percentiles, int overlaps) {}

  /**
   * Uncontended lock+unlock pairs of every contender on one key, from this thread, in {@code
   * rounds} rounds that take turns ({@code perRound} pairs each per round, after {@code warmup}
   * pairs each); a contender stops when it has spent {@code maxTime}.
   */
  static Map<String, Percentiles> interleaved(
      Map<String, ZkContenders.Contender> contenders,
      int warmup,
      int rounds,
      int perRound,
      Duration maxTime)
      throws Exception {
    Map<String, long[]> samples = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<String, Long> spent = new LinkedHashMap<>();
    for (Map.Entry<String, ZkContenders.Contender> entry : contenders.entrySet()) {
      for (int i = 0; i < warmup; i++) {
        pair(entry.getKey(), entry.getValue());
      }
      samples.put(entry.getKey(), new long[rounds * perRound]);
      counts.put(entry.getKey(), 0);
      spent.put(entry.getKey(), 0L);
    }
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, ZkContenders.Contender> entry : contenders.entrySet()) {
        String name = entry.getKey();
        long[] nanos = samples.get(name);
        int n = counts.get(name);
        long used = spent.get(name);
        for (int i = 0; i < perRound && used < maxTime.toNanos(); i++) {
          long took = pair(name, entry.getValue());
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

  private static long pair(String name, ZkContenders.Contender contender) throws Exception {
    long start = System.nanoTime();
    if (!contender.tryLock("pair")) {
      throw new IllegalStateException(name + " refused a free lock");
    }
    contender.unlock();
    return System.nanoTime() - start;
  }

  /**
   * Hand-offs of one key between {@code a} and {@code b}, taking turns: the holder takes the lock,
   * the other starts waiting for it, the holder keeps it {@link #HOLD} and releases; a sample is
   * from just before the release call to the waiter's grant. {@code warmup} rounds, then up to
   * {@code samples}, or as many as fit in {@code maxTime}.
   */
  static Run handOff(
      ZkContenders.Contender a, ZkContenders.Contender b, int warmup, int samples, Duration maxTime)
      throws Exception {
    ExecutorService[] threads = {
      Executors.newSingleThreadExecutor(), Executors.newSingleThreadExecutor()
    };
    ZkContenders.Contender[] contenders = {a, b};
    long[] nanos = new long[samples];
    long end = System.nanoTime() + maxTime.toNanos();
    int n = 0;
    int overlaps = 0;
    try {
      for (int i = 0; i < warmup + samples && System.nanoTime() - end < 0; i++) {
        int holder = i % 2;
        int waiter = 1 - holder;
        ZkContenders.Contender holding = contenders[holder];
        ZkContenders.Contender waiting = contenders[waiter];
        if (!threads[holder].submit(() -> holding.tryLock("hot")).get(15, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the hot key is not free");
        }
        Future<Long> granted =
            threads[waiter].submit(
                () -> {
                  if (!waiting.lock("hot", Duration.ofSeconds(10))) {
                    throw new IllegalStateException("no hand-off in 10 s");
                  }
                  return System.nanoTime();
                });
        LockSupport.parkNanos(HOLD.toNanos()); // the holder's work
        long released = System.nanoTime();
        threads[holder]
            .submit(
                () -> {
                  holding.unlock();
                  return null;
                })
            .get(15, TimeUnit.SECONDS);
        long at = granted.get(15, TimeUnit.SECONDS);
        threads[waiter]
            .submit(
                () -> {
                  waiting.unlock();
                  return null;
                })
            .get(15, TimeUnit.SECONDS);
        if (at < released) {
          overlaps++;
        }
        if (i >= warmup) {
          nanos[n++] = at - released;
        }
      }
    } finally {
      threads[0].shutdownNow();
      threads[1].shutdownNow();
    }
    return new Run(Percentiles.of(Arrays.copyOf(nanos, n)), overlaps);
  }
}
