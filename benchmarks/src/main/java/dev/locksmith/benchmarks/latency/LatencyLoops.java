package dev.locksmith.benchmarks.latency;

import dev.locksmith.benchmarks.load.Percentiles;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded latency loops over {@link Contender}s: uncontended lock+unlock, alone or in rounds that
 * take turns, and the hand-off of a hot key between two contenders, each driven from a thread of
 * its own (as two processes would be). Every loop ends after its count or its time, whichever
 * first.
 */
public final class LatencyLoops {
  /** How long a holder keeps the lock in a hand-off round, so that the other is waiting. */
  public static final Duration HOLD = Duration.ofMillis(5);

  private static final long STEP_SECONDS = 15;

  private LatencyLoops() {}

  /**
   * A bounded run's figures.
   *
   * @param percentiles the samples' percentiles (for hand-offs: release call -> the other's grant)
   * @param overlaps grants that came before the release call (must be 0)
   */
  public record Run(Percentiles percentiles, int overlaps) {}

  /**
   * {@code warmup} then up to {@code samples} uncontended lock+unlock pairs on one key, or as many
   * as fit in {@code maxTime}.
   */
  public static Run lockUnlock(Contender contender, int warmup, int samples, Duration maxTime)
      throws Exception {
    long[] nanos = new long[samples];
    long end = System.nanoTime() + maxTime.toNanos();
    int n = 0;
    for (int i = 0; i < warmup + samples && System.nanoTime() - end < 0; i++) {
      long took = pair("the contender", contender);
      if (i >= warmup) {
        nanos[n++] = took;
      }
    }
    return new Run(Percentiles.of(Arrays.copyOf(nanos, n)), 0);
  }

  /**
   * Uncontended lock+unlock pairs of every contender on one key, from this thread, in {@code
   * rounds} rounds that take turns ({@code perRound} pairs each per round, after {@code warmup}
   * pairs each), so that a busy moment of the machine falls on every contender alike; a contender
   * stops when it has spent {@code maxTime}.
   */
  public static Map<String, Percentiles> interleaved(
      Map<String, ? extends Contender> contenders,
      int warmup,
      int rounds,
      int perRound,
      Duration maxTime)
      throws Exception {
    Map<String, long[]> samples = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<String, Long> spent = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends Contender> entry : contenders.entrySet()) {
      for (int i = 0; i < warmup; i++) {
        pair(entry.getKey(), entry.getValue());
      }
      samples.put(entry.getKey(), new long[rounds * perRound]);
      counts.put(entry.getKey(), 0);
      spent.put(entry.getKey(), 0L);
    }
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, ? extends Contender> entry : contenders.entrySet()) {
        String name = entry.getKey();
        long[] nanos = Objects.requireNonNull(samples.get(name));
        int n = Objects.requireNonNull(counts.get(name));
        long used = Objects.requireNonNull(spent.get(name));
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
        (name, nanos) ->
            result.put(
                name,
                Percentiles.of(Arrays.copyOf(nanos, Objects.requireNonNull(counts.get(name))))));
    return result;
  }

  private static long pair(String name, Contender contender) throws Exception {
    long start = System.nanoTime();
    if (!contender.tryLock("bench:pair")) {
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
  public static Run handOff(Contender a, Contender b, int warmup, int samples, Duration maxTime)
      throws Exception {
    ExecutorService[] threads = {
      Executors.newSingleThreadExecutor(), Executors.newSingleThreadExecutor()
    };
    Contender[] contenders = {a, b};
    long[] nanos = new long[samples];
    long end = System.nanoTime() + maxTime.toNanos();
    int n = 0;
    int overlaps = 0;
    try {
      for (int i = 0; i < warmup + samples && System.nanoTime() - end < 0; i++) {
        int holder = i % 2;
        Contender holding = contenders[holder];
        Contender waiting = contenders[1 - holder];
        if (!on(threads[holder], () -> holding.tryLock("bench:hot"))) {
          throw new IllegalStateException("the hot key is not free");
        }
        Future<Long> granted =
            threads[1 - holder].submit(
                () -> {
                  if (!waiting.lock("bench:hot", Duration.ofSeconds(10))) {
                    throw new IllegalStateException("no hand-off in 10 s");
                  }
                  return System.nanoTime();
                });
        LockSupport.parkNanos(HOLD.toNanos()); // the holder's work
        long released = System.nanoTime();
        on(threads[holder], () -> unlock(holding));
        long at = granted.get(STEP_SECONDS, TimeUnit.SECONDS);
        on(threads[1 - holder], () -> unlock(waiting));
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

  private static boolean unlock(Contender contender) throws Exception {
    contender.unlock();
    return true;
  }

  private static boolean on(ExecutorService thread, Callable<Boolean> step) throws Exception {
    return thread.submit(step).get(STEP_SECONDS, TimeUnit.SECONDS);
  }
}
