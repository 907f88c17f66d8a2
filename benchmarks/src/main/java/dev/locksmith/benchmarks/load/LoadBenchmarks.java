package dev.locksmith.benchmarks.load;

import static dev.locksmith.benchmarks.load.Probes.redisCpu;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The load harnesses, side by side in one run on loopback: lock+unlock throughput of {@code
 * clients} threads on distinct keys (the TCP lock server against raw Redis and the Locksmith Redis
 * provider), then hand-off latency on one hot key for every system. Starts an in-process {@link
 * LockServer} and a {@code redis-server} of its own on free ports, and stops both.
 */
public final class LoadBenchmarks {
  private static final Logger LOG = LoggerFactory.getLogger(LoadBenchmarks.class);

  private LoadBenchmarks() {}

  /**
   * How long and how hard the harnesses run.
   *
   * @param clients threads of the throughput run, each on its own key, sharing one client
   * @param warmup throughput warm-up before the first round of each system
   * @param window the measured window of each throughput round
   * @param rounds throughput rounds, interleaved across systems; the median is reported
   * @param contenders hand-off contenders on the hot key, each with a client of its own
   * @param hold how long a hand-off holder keeps the lock before releasing
   * @param handoffWarmup hand-offs of each system's warm-up run, made before the first round (and
   *     bounded by one round's time); each round then discards a twentieth of this many
   * @param handoffSamples hand-offs sampled per system
   * @param handoffMaxTime the time bound of one system's hand-off run, over all its rounds
   * @param handoffRounds hand-off rounds, interleaved across systems so that each meets the
   *     machine's passing load alike; the samples and time bound are shared out among them
   */
  public record Settings(
      int clients,
      Duration warmup,
      Duration window,
      int rounds,
      int contenders,
      Duration hold,
      int handoffWarmup,
      int handoffSamples,
      Duration handoffMaxTime,
      int handoffRounds) {

    /** The settings of the report: about two and a half minutes in all. */
    public static Settings defaults() {
      return new Settings(
          32,
          Duration.ofSeconds(3),
          Duration.ofSeconds(4),
          3,
          4,
          Duration.ofMillis(2),
          500,
          1000,
          Duration.ofSeconds(15),
          4);
    }

    /** A short smoke run, for checking the harness itself. */
    public static Settings quick() {
      return new Settings(
          8,
          Duration.ofMillis(500),
          Duration.ofSeconds(1),
          1,
          3,
          Duration.ofMillis(2),
          10,
          50,
          Duration.ofSeconds(3),
          1);
    }
  }

  /**
   * One system's throughput.
   *
   * @param system the system's short name
   * @param description what was measured
   * @param clients concurrent threads
   * @param rounds cycles per second of each round
   * @param median the median of the rounds
   * @param failures cycles that failed or timed out
   * @param serverMicrosPerCycle for a system on {@code redis-server}, the median over the rounds of
   *     the server's CPU time per cycle ({@code INFO cpu} over the round, warm-up included, divided
   *     by the round's cycles at its measured rate); empty for the in-process TCP server
   */
  public record ThroughputRow(
      String system,
      String description,
      int clients,
      List<Double> rounds,
      double median,
      long failures,
      OptionalDouble serverMicrosPerCycle) {}

  /**
   * One system's hand-off latency.
   *
   * @param system the system's short name
   * @param description what was measured
   * @param contenders contenders on the hot key
   * @param latencies the sampled hand-off latencies, every round's together
   * @param violations overlapping holders seen (must be 0)
   * @param failures acquires that timed out or threw
   * @param seconds how long the rounds took
   * @param roundP50s each round's median latency, in nanoseconds, in the order the rounds ran
   */
  public record HandoffRow(
      String system,
      String description,
      int contenders,
      Percentiles latencies,
      long violations,
      long failures,
      double seconds,
      List<Long> roundP50s) {}

  /**
   * Everything the harnesses measured.
   *
   * @param settings the settings used
   * @param throughput one row per system, raw Redis first
   * @param handoff one row per system, raw Redis first
   */
  public record Results(
      Settings settings, List<ThroughputRow> throughput, List<HandoffRow> handoff) {}

  /** Runs both harnesses with {@code settings}. */
  public static Results run(Settings settings) throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated();
        LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      LOG.info("redis-server at {}, lock server at tcp://127.0.0.1:{}", redis.url(), port);
      LockSystem tcp = Systems.tcp(port);
      List<LockSystem> throughputSystems =
          List.of(
              Systems.rawRedis(redis.url()),
              tcp,
              Systems.rawRedisFenced(redis.url()),
              Systems.locksmithRedis(redis.url()),
              Systems.locksmithRedisEngine(redis.url()));
      List<ThroughputRow> throughput =
          throughput(settings, throughputSystems, system -> system == tcp ? null : redis);
      List<LockSystem> handoffSystems =
          List.of(
              Systems.rawRedis(redis.url()),
              Systems.tcp(port),
              Systems.locksmithRedis(redis.url()),
              Systems.redissonRLock(redis.url()),
              Systems.springIntegration(
                  redis.host(), redis.port(), RedisLockRegistry.RedisLockType.PUB_SUB_LOCK),
              Systems.springIntegration(
                  redis.host(), redis.port(), RedisLockRegistry.RedisLockType.SPIN_LOCK));
      return new Results(settings, throughput, HandoffRounds.run(settings, handoffSystems));
    }
  }

  /**
   * Throughput of {@code systems} in interleaved rounds; {@code serverOf} names the {@code
   * redis-server} a system runs on, whose CPU each round then measures (null: not on one).
   */
  private static List<ThroughputRow> throughput(
      Settings settings,
      List<LockSystem> systems,
      Function<LockSystem, @Nullable RedisServerProcess> serverOf)
      throws Exception {
    Map<LockSystem, LockClient> clients = new LinkedHashMap<>();
    Map<LockSystem, List<Double>> rounds = new LinkedHashMap<>();
    Map<LockSystem, List<Double>> serverMicros = new LinkedHashMap<>();
    Map<LockSystem, Long> failures = new LinkedHashMap<>();
    try {
      for (LockSystem system : systems) {
        // One client per system shared by every thread: a TCP connection or a Redisson pool.
        clients.put(system, system.newClient(settings.clients()));
        rounds.put(system, new ArrayList<>());
        serverMicros.put(system, new ArrayList<>());
        failures.put(system, 0L);
      }
      for (int round = 0; round < settings.rounds(); round++) {
        for (LockSystem system : systems) {
          Duration warmup = round == 0 ? settings.warmup() : Duration.ofSeconds(1);
          RedisServerProcess server = serverOf.apply(system);
          double serverBefore = server == null ? 0 : redisCpu(server);
          long startNanos = System.nanoTime();
          Throughput.Window window =
              Throughput.measure(
                  Objects.requireNonNull(clients.get(system)),
                  "tp-" + system.name(),
                  settings.clients(),
                  warmup,
                  settings.window());
          if (server != null && window.cyclesPerSecond() > 0) {
            double cores =
                (redisCpu(server) - serverBefore) / ((System.nanoTime() - startNanos) / 1e9);
            Objects.requireNonNull(serverMicros.get(system))
                .add(cores / window.cyclesPerSecond() * 1e6);
          }
          LOG.info(
              "throughput round {} {}: {} cycles/s ({} failures)",
              round + 1,
              system.name(),
              Math.round(window.cyclesPerSecond()),
              window.failures());
          Objects.requireNonNull(rounds.get(system)).add(window.cyclesPerSecond());
          failures.merge(system, window.failures(), Long::sum);
        }
      }
    } finally {
      clients.values().forEach(LockClient::close);
    }
    List<ThroughputRow> rows = new ArrayList<>();
    for (LockSystem system : systems) {
      List<Double> measured = Objects.requireNonNull(rounds.get(system));
      List<Double> server = Objects.requireNonNull(serverMicros.get(system));
      rows.add(
          new ThroughputRow(
              system.name(),
              system.description(),
              settings.clients(),
              List.copyOf(measured),
              median(measured),
              Objects.requireNonNull(failures.get(system)),
              server.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(median(server))));
    }
    return rows;
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * Runs the harnesses alone and logs the figures; {@code --quick} for a short smoke run.
   *
   * @param args {@code --quick} or nothing
   */
  public static void main(String[] args) throws Exception {
    Settings settings = List.of(args).contains("--quick") ? Settings.quick() : Settings.defaults();
    Results results = run(settings);
    LOG.info("{}", results);
    // Client libraries may leave non-daemon threads behind.
    System.exit(0);
  }
}
