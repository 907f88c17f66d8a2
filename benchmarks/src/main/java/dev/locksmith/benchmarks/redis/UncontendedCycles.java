package dev.locksmith.benchmarks.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * {@link HandoffTrace}'s {@code --cycles} mode: the caller-visible time of one uncontended lock and
 * unlock of one lock id through one provider, the release awaited against the release sent off the
 * caller's path, with one {@code GET} as the round-trip floor and {@code RLock} as the peer.
 */
final class UncontendedCycles {
  private UncontendedCycles() {}

  /** One uncontended lock and unlock, timed from the caller's side. */
  private interface Cycle {
    void run() throws Exception;
  }

  /**
   * Runs {@code rounds} interleaved rounds (after one warm-up round) of {@code cycles} cycles per
   * system and prints one line per round and system, then the pooled figures.
   */
  static void run(int rounds, int cycles) throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      String url = "redis://127.0.0.1:" + redis.port();
      RedissonClient client = RedisClients.create(url, 2);
      RedisLockProvider provider = RedisLockProvider.create(client, new RedisLockOptions("cycle"));
      try {
        RLock lock = client.getLock("rlock:cycle");
        RBucket<String> bucket = client.getBucket("cycle:floor");
        bucket.set("x");
        Map<String, Cycle> systems = new LinkedHashMap<>();
        systems.put(
            "release",
            () -> {
              LeaseGrant lease =
                  provider.tryAcquire(LockRequest.of("sync", Duration.ofSeconds(30))).orElseThrow();
              provider.release(lease);
            });
        systems.put(
            "releaseAsync",
            () -> {
              LeaseGrant lease =
                  provider
                      .tryAcquire(LockRequest.of("async", Duration.ofSeconds(30)))
                      .orElseThrow();
              provider.releaseAsync(lease);
            });
        systems.put(
            "rlock",
            () -> {
              if (!lock.tryLock()) {
                throw new IllegalStateException("rlock busy");
              }
              lock.unlock();
            });
        systems.put("one GET", bucket::get);
        Map<String, List<long[]>> results = new LinkedHashMap<>();
        java.lang.System.out.printf(
            Locale.ROOT,
            "uncontended lock+unlock, caller-visible, %d rounds x %d cycles, interleaved%n",
            rounds,
            cycles);
        for (int round = 0; round <= rounds; round++) {
          for (Map.Entry<String, Cycle> system : systems.entrySet()) {
            long[] times = new long[cycles];
            for (int i = 0; i < cycles; i++) {
              long start = java.lang.System.nanoTime();
              system.getValue().run();
              times[i] = java.lang.System.nanoTime() - start;
            }
            if (round == 0) {
              continue; // warm-up
            }
            Arrays.sort(times);
            results.computeIfAbsent(system.getKey(), name -> new ArrayList<>()).add(times);
            java.lang.System.out.printf(
                Locale.ROOT,
                "round %d %-13s p50 %7.1f us  p99 %7.1f us%n",
                round,
                system.getKey(),
                Percentiles.micros(Percentiles.of(times, 50)),
                Percentiles.micros(Percentiles.of(times, 99)));
          }
        }
        java.lang.System.out.println("pooled (median of round p50s; p99 of all samples):");
        results.forEach(
            (name, list) -> {
              double[] p50s =
                  list.stream()
                      .mapToDouble(sorted -> Percentiles.of(sorted, 50))
                      .sorted()
                      .toArray();
              long[] all = list.stream().flatMapToLong(Arrays::stream).sorted().toArray();
              java.lang.System.out.printf(
                  Locale.ROOT,
                  "  %-13s p50 %7.1f us  p99 %7.1f us%n",
                  name,
                  Percentiles.micros(p50s[p50s.length / 2]),
                  Percentiles.micros(Percentiles.of(all, 99)));
            });
      } finally {
        provider.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }
}
