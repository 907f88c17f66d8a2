package dev.locksmith.benchmarks.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cost of replica-acknowledged grants: one uncontended {@code tryAcquire} + {@code release}
 * through the Redis provider with {@code replicas=0} and with {@code replicas=1} (Redis {@code WAIT
 * 1} after the acquire script, on its connection), over one Redisson client, against a local master
 * and a replica of it, both started by the benchmark. {@link #main} runs both and prints their
 * ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ReplicaAckBenchmark {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaAckBenchmark.class);
  private static final Duration TTL = Duration.ofSeconds(30);

  private @Nullable RedisServerProcess master;
  private @Nullable RedisServerProcess replica;
  private @Nullable RedissonClient client;
  private RedisLockProvider unacknowledged;
  private RedisLockProvider acknowledged;

  /** Starts the master, its replica (waiting until it is online) and the providers. */
  @Setup(Level.Trial)
  public void setUp() throws IOException, InterruptedException {
    RedisServerProcess primary = TestRedis.startDedicated();
    master = primary;
    replica =
        TestRedis.startDedicated("--replicaof", primary.host(), Integer.toString(primary.port()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!String.valueOf(
            RespClient.call(
                primary.host(), primary.port(), Duration.ofSeconds(5), "INFO", "replication"))
        .contains("state=online")) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the replica did not come online within 30 s");
      }
      // Paces the check; the replica's first sync takes a few milliseconds.
      TimeUnit.MILLISECONDS.sleep(20);
    }
    RedissonClient redisson = RedisClients.create(primary.url(), 4);
    client = redisson;
    unacknowledged = RedisLockProvider.create(redisson, new RedisLockOptions("bench-r0"));
    acknowledged =
        RedisLockProvider.create(
            redisson, new RedisLockOptions("bench-r1").withReplicas(1, Duration.ofSeconds(1)));
  }

  /** Stops the providers, the client and both servers. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (unacknowledged != null) {
      unacknowledged.close();
    }
    if (acknowledged != null) {
      acknowledged.close();
    }
    if (client != null) {
      client.shutdown();
    }
    if (replica != null) {
      replica.close();
    }
    if (master != null) {
      master.close();
    }
  }

  /** Acquire and release, no replica waited for. */
  @Benchmark
  public boolean replicas0() {
    return cycle(unacknowledged, "r0");
  }

  /** Acquire (then {@code WAIT 1 1000}) and release. */
  @Benchmark
  public boolean replicas1() {
    return cycle(acknowledged, "r1");
  }

  private static boolean cycle(RedisLockProvider provider, String lockId) {
    LeaseGrant lease =
        provider
            .tryAcquire(new LockRequest(lockId, OwnerTokens.newToken(), TTL, "bench"))
            .orElseThrow(() -> new IllegalStateException("lock " + lockId + " busy"));
    return provider.release(lease);
  }

  /**
   * Runs both benchmarks in one JMH run and prints each average and the ratio replicas=1 /
   * replicas=0.
   */
  public static void main(String[] args) throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder().include(ReplicaAckBenchmark.class.getName() + "\\.").build())
            .run();
    double none = Double.NaN;
    double one = Double.NaN;
    for (RunResult result : results) {
      String label = result.getPrimaryResult().getLabel();
      double score = result.getPrimaryResult().getScore();
      if (label.equals("replicas0")) {
        none = score;
      } else if (label.equals("replicas1")) {
        one = score;
      }
    }
    LOG.info(
        String.format(
            "acquire+release: replicas=0 %.1f us, replicas=1 %.1f us, ratio %.2f",
            none, one, one / none));
  }
}
