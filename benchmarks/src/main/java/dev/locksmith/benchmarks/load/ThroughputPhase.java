package dev.locksmith.benchmarks.load;

import static dev.locksmith.benchmarks.load.CapacityFigures.capitalized;
import static dev.locksmith.benchmarks.load.CapacityFigures.rounded;
import static dev.locksmith.benchmarks.load.Probes.ownCpu;
import static dev.locksmith.benchmarks.load.Probes.processCpu;
import static dev.locksmith.benchmarks.load.Probes.redisCpu;

import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The throughput phase of {@link Capacity}: grants per second on distinct keys. */
final class ThroughputPhase {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);

  private ThroughputPhase() {}

  static String run(CapacityOptions options, Path log, CapacityFindings findings) throws Exception {
    StringBuilder out =
        new StringBuilder("### Grants per second on distinct keys (acquire + release cycles)\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "Each thread loops acquire + release on a key of its own (no contention); all threads"
                + " share one client: the `tcp://` provider (one multiplexed connection) against"
                + " the lock server's JVM, and for Redis the raw `SET NX PX` + owner-checked"
                + " delete script over a Redisson pool with a connection per thread. %d rounds of"
                + " %d s interleaved after a %d s warm-up; the median round.%n%n",
            options.rounds,
            options.window.toSeconds(),
            options.warmup.toSeconds()));
    List<String> ratios = new ArrayList<>();
    List<String> cpu = new ArrayList<>();
    out.append(
        "| clients | locksmith-tcp cycles/s | redis-raw cycles/s | ratio | rounds (tcp; redis) |"
            + " server CPU, cores (tcp; redis) | client CPU, cores (tcp; redis) |\n");
    out.append("|---:|---:|---:|---:|---|---|---|\n");
    try (ServerJvm server = ServerJvm.start(options.heap, log);
        RedisServerProcess redis = TestRedis.startDedicated()) {
      for (int clients : options.clients) {
        LockSystem tcp = Systems.tcp(server.port());
        LockSystem raw = Systems.rawRedis(redis.url());
        Map<String, List<Double>> rounds = new LinkedHashMap<>();
        Map<String, List<Double>> serverCores = new LinkedHashMap<>();
        Map<String, List<Double>> clientCores = new LinkedHashMap<>();
        try (LockClient tcpClient = tcp.newClient(clients);
            LockClient redisClient = raw.newClient(clients)) {
          for (int round = 0; round < options.rounds; round++) {
            Duration warmup = round == 0 ? options.warmup : Duration.ofSeconds(1);
            for (Map.Entry<String, LockClient> system :
                Map.of("tcp", tcpClient, "redis", redisClient).entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .toList()) {
              boolean isTcp = system.getKey().equals("tcp");
              double serverBefore = isTcp ? processCpu(server.pid()) : redisCpu(redis);
              double clientBefore = ownCpu();
              long startNanos = System.nanoTime();
              Throughput.Window window =
                  Throughput.measure(
                      system.getValue(),
                      "cap-" + system.getKey() + "-" + clients + "-" + round,
                      clients,
                      warmup,
                      options.window);
              double elapsed = (System.nanoTime() - startNanos) / 1e9;
              double serverAfter = isTcp ? processCpu(server.pid()) : redisCpu(redis);
              serverCores
                  .computeIfAbsent(system.getKey(), k -> new ArrayList<>())
                  .add((serverAfter - serverBefore) / elapsed);
              clientCores
                  .computeIfAbsent(system.getKey(), k -> new ArrayList<>())
                  .add((ownCpu() - clientBefore) / elapsed);
              LOG.info(
                  "throughput {} clients, round {}, {}: {} cycles/s, {} failures",
                  clients,
                  round + 1,
                  system.getKey(),
                  Math.round(window.cyclesPerSecond()),
                  window.failures());
              rounds
                  .computeIfAbsent(system.getKey(), k -> new ArrayList<>())
                  .add(window.cyclesPerSecond());
            }
          }
        }
        double tcpMedian = LoadBenchmarks.median(Objects.requireNonNull(rounds.get("tcp")));
        double redisMedian = LoadBenchmarks.median(Objects.requireNonNull(rounds.get("redis")));
        ratios.add(
            String.format(Locale.ROOT, "%.2fx at %d clients", tcpMedian / redisMedian, clients));
        out.append(
            String.format(
                Locale.ROOT,
                "| %d | %,.0f | %,.0f | **%.2fx** | %s; %s | %.2f; %.2f | %.2f; %.2f |%n",
                clients,
                tcpMedian,
                redisMedian,
                tcpMedian / redisMedian,
                rounded(Objects.requireNonNull(rounds.get("tcp"))),
                rounded(Objects.requireNonNull(rounds.get("redis"))),
                LoadBenchmarks.median(Objects.requireNonNull(serverCores.get("tcp"))),
                LoadBenchmarks.median(Objects.requireNonNull(serverCores.get("redis"))),
                LoadBenchmarks.median(Objects.requireNonNull(clientCores.get("tcp"))),
                LoadBenchmarks.median(Objects.requireNonNull(clientCores.get("redis")))));
        cpu.add(
            String.format(
                Locale.ROOT,
                "at %d clients the lock server answered %,.0f requests/s (two a cycle) on %.2f"
                    + " cores while its clients used %.2f (redis-server %.2f, its clients %.2f)",
                clients,
                2 * tcpMedian,
                LoadBenchmarks.median(Objects.requireNonNull(serverCores.get("tcp"))),
                LoadBenchmarks.median(Objects.requireNonNull(clientCores.get("tcp"))),
                LoadBenchmarks.median(Objects.requireNonNull(serverCores.get("redis"))),
                LoadBenchmarks.median(Objects.requireNonNull(clientCores.get("redis")))));
      }
    }
    findings.limits.add(
        "**Grants per second: the clients and the two cores, not the server.** "
            + String.join(", ", ratios)
            + " of raw Redis. "
            + capitalized(String.join("; ", cpu))
            + " (CPU time over each round's wall time, medians)."
            + (findings.pipelinedRate > 0
                ? String.format(
                    Locale.ROOT,
                    " Clients that pipeline got %,.0f grants/s from the same server in the locks"
                        + " phase.",
                    findings.pipelinedRate)
                : "")
            + " The server's one event loop is far from busy: the pace is set by the client"
            + " process (its threads waiting on each reply, its event loop) and by the two cores"
            + " that client, server and everything else on the machine share.");
    out.append('\n');
    return out.toString();
  }
}
