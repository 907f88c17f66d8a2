package dev.locksmith.benchmarks.redis;

import dev.locksmith.benchmarks.load.HandoffTurns;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Hot-key hand-off, Locksmith's Redis provider against Redisson's {@code RLock}, in interleaved
 * rounds on one {@code redis-server} of its own, so that both systems see the same machine load.
 * Each contender has a client of its own (as a separate process would); a holder keeps the lock for
 * a short hold, notes the time and releases, and the hand-off latency runs from just before that
 * release call until another contender's acquire returns. The releaser then waits until someone
 * else holds before competing again, so every sample is a hand-off to a parked waiter.
 *
 * <p>Besides the client-side latencies it splits the server's share: with {@code slowlog-log-slower
 * -than 0} every command is logged with its execution time, and each round reports the server µs
 * per command by name. The gap between a round's p50 and the server's µs per hand-off is the
 * clients' share (wake-ups, dispatch, threads).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.redis.HandoffTrace
 * [--rounds 5] [--samples 200] [--contenders 4] [--hold-ms 2] [--warmup 50]}
 *
 * <p>With {@code --cycles N} it measures instead the caller-visible time of one uncontended lock
 * and unlock of one lock id through one provider, in interleaved rounds of N cycles: the release
 * awaited ({@code release}) against the release sent off the caller's path ({@code releaseAsync},
 * the next acquire folding it in), with one {@code GET} over the same client as the round-trip
 * floor and {@code RLock.tryLock}/{@code unlock} as the peer.
 */
public final class HandoffTrace {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private HandoffTrace() {}

  /** One contender's way to take and give back the hot lock. */
  private interface Contender extends AutoCloseable {
    /**
     * Takes the lock, waiting up to {@code wait}; returns the release, or null when not granted.
     */
    @Nullable Runnable acquire(Duration wait) throws Exception;

    @Override
    void close();
  }

  /** A system under test: makes one contender. */
  private interface System {
    String name();

    Contender contender(String url, int index);
  }

  /**
   * Runs the rounds and prints one line per round and system, then the pooled figures.
   *
   * @param args options, see the class comment
   */
  public static void main(String[] args) throws Exception {
    int rounds = option(args, "--rounds", 5);
    int samples = option(args, "--samples", 200);
    int contenders = option(args, "--contenders", 4);
    int holdMillis = option(args, "--hold-ms", 2);
    int warmup = option(args, "--warmup", 50);
    List<System> systems = List.of(locksmithRedis(), redissonRLock());
    Map<String, List<long[]>> results = new TreeMap<>();
    int cycles = option(args, "--cycles", 0);
    if (cycles > 0) {
      UncontendedCycles.run(rounds, cycles);
      return;
    }
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      redis.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
      redis.call("CONFIG", "SET", "slowlog-max-len", "100000");
      String url = "redis://127.0.0.1:" + redis.port();
      java.lang.System.out.printf(
          Locale.ROOT,
          "hand-off, %d contenders, %d ms hold, %d rounds x %d samples per system, interleaved%n",
          contenders,
          holdMillis,
          rounds,
          samples);
      for (int round = 1; round <= rounds; round++) {
        for (System system : systems) {
          List<Contender> clients = new ArrayList<>();
          for (int i = 0; i < contenders; i++) {
            clients.add(system.contender(url, i));
          }
          try {
            // A few hand-offs so that connections, subscriptions and scripts are in place.
            run(clients, Duration.ofMillis(holdMillis), warmup, 1);
            redis.call("SLOWLOG", "RESET");
            Outcome outcome = run(clients, Duration.ofMillis(holdMillis), 0, samples);
            Object log = redis.call("SLOWLOG", "GET", "100000");
            long[] sorted = outcome.latencies().clone();
            Arrays.sort(sorted);
            results.computeIfAbsent(system.name(), name -> new ArrayList<>()).add(sorted);
            java.lang.System.out.printf(
                Locale.ROOT,
                "round %d %-16s p50 %7.1f us  p90 %7.1f us  p99 %7.1f us  overlaps %d  failures %d"
                    + "  server %s%n",
                round,
                system.name(),
                Percentiles.micros(Percentiles.of(sorted, 50)),
                Percentiles.micros(Percentiles.of(sorted, 90)),
                Percentiles.micros(Percentiles.of(sorted, 99)),
                outcome.violations(),
                outcome.failures(),
                SlowlogShare.perHandoff(log, sorted.length));
          } finally {
            clients.forEach(Contender::close);
          }
        }
      }
    }
    java.lang.System.out.println("pooled (median of round p50s; p99 of all samples):");
    for (Map.Entry<String, List<long[]>> entry : results.entrySet()) {
      double[] p50s =
          entry.getValue().stream()
              .mapToDouble(sorted -> Percentiles.of(sorted, 50))
              .sorted()
              .toArray();
      long[] all = entry.getValue().stream().flatMapToLong(Arrays::stream).sorted().toArray();
      java.lang.System.out.printf(
          Locale.ROOT,
          "  %-16s p50 %7.1f us  p99 %7.1f us  (%d samples)%n",
          entry.getKey(),
          Percentiles.micros(p50s[p50s.length / 2]),
          Percentiles.micros(Percentiles.of(all, 99)),
          all.length);
    }
  }

  private static System locksmithRedis() {
    return new System() {
      @Override
      public String name() {
        return "locksmith-redis";
      }

      @Override
      public Contender contender(String url, int index) {
        RedissonClient client = RedisClients.create(url, 2);
        RedisLockProvider provider =
            RedisLockProvider.create(client, new RedisLockOptions("trace"));
        return new Contender() {
          @Override
          public @Nullable Runnable acquire(Duration wait) throws Exception {
            LeaseGrant lease =
                provider.acquire(LockRequest.of("hot", Duration.ofSeconds(30)), wait).orElse(null);
            return lease == null ? null : () -> provider.release(lease);
          }

          @Override
          public void close() {
            provider.close();
            client.shutdown(0, 2, TimeUnit.SECONDS);
          }
        };
      }
    };
  }

  private static System redissonRLock() {
    return new System() {
      @Override
      public String name() {
        return "redisson-rlock";
      }

      @Override
      public Contender contender(String url, int index) {
        RedissonClient client = RedisClients.create(url, 2);
        RLock lock = client.getLock("rlock:hot");
        return new Contender() {
          @Override
          public @Nullable Runnable acquire(Duration wait) throws Exception {
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
          }

          @Override
          public void close() {
            client.shutdown(0, 2, TimeUnit.SECONDS);
          }
        };
      }
    };
  }

  private record Outcome(long[] latencies, long violations, long failures) {}

  private static Outcome run(List<Contender> clients, Duration hold, int warmup, int samples)
      throws InterruptedException {
    HandoffTurns turns = new HandoffTurns(warmup, samples);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      int id = i;
      Contender client = clients.get(i);
      Thread thread = new Thread(() -> contend(id, client, hold, turns), "trace-" + id);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
    turns.done.await(120, TimeUnit.SECONDS);
    turns.stop();
    for (Thread thread : threads) {
      thread.join(WAIT.toMillis() * 2);
    }
    return new Outcome(turns.samples(), turns.violations.get(), turns.failures.get());
  }

  private static void contend(int id, Contender client, Duration hold, HandoffTurns turns) {
    while (!turns.stopped()) {
      Runnable release;
      try {
        release = client.acquire(WAIT);
      } catch (Exception e) {
        turns.failures.incrementAndGet();
        continue;
      }
      if (release == null) {
        turns.failures.incrementAndGet();
        continue;
      }
      long generation = turns.acquired(id, java.lang.System.nanoTime());
      if (!turns.stopped()) {
        LockSupport.parkNanos(hold.toNanos());
      }
      turns.leaving();
      try {
        release.run();
      } catch (RuntimeException e) {
        turns.failures.incrementAndGet();
      }
      turns.awaitOtherHolder(generation, WAIT.toNanos());
    }
  }

  private static int option(String[] args, String name, int defaultValue) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return defaultValue;
  }
}
