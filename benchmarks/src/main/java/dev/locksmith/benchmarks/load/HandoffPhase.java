package dev.locksmith.benchmarks.load;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.TcpServerStats;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The hand-off phase of {@link Capacity}: hot-key hand-off latency. */
final class HandoffPhase {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);

  private HandoffPhase() {}

  static String run(CapacityOptions options, Path log, CapacityFindings findings) throws Exception {
    StringBuilder out = new StringBuilder("### Hot-key hand-off latency\n\n");
    out.append(
        "4 contenders on one key, each with a client (so a connection) of its own; a holder keeps"
            + " the lock 2 ms, then releases; latency from the release call to another"
            + " contender's acquire returning (as in section 1). 100 warm-up hand-offs, then up to"
            + " 1000 samples or 15 s.\n\n");
    List<String> handoffs = new ArrayList<>();
    out.append("| system | p50 | p90 | p99 | max | samples | overlaps |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|\n");
    try (ServerJvm server = ServerJvm.start(options.heap, log);
        RedisServerProcess redis = TestRedis.startDedicated()) {
      for (LockSystem system : List.of(Systems.tcp(server.port()), Systems.rawRedis(redis.url()))) {
        List<LockClient> clients = new ArrayList<>();
        try {
          for (int i = 0; i < 4; i++) {
            clients.add(system.newClient(2));
          }
          Handoff.Outcome outcome =
              Handoff.run(clients, Duration.ofMillis(2), 100, 1000, Duration.ofSeconds(15));
          Percentiles p = outcome.latencies();
          LOG.info("hand-off {}: {}", system.name(), p);
          handoffs.add(
              String.format(
                  Locale.ROOT,
                  "%s p50 %.3f ms, p99 %.3f ms",
                  system.name(),
                  p.p50() / 1e6,
                  p.p99() / 1e6));
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %d | %d |%n",
                  system.name(),
                  p.p50() / 1e6,
                  p.p90() / 1e6,
                  p.p99() / 1e6,
                  p.max() / 1e6,
                  p.count(),
                  outcome.violations()));
        } finally {
          clients.forEach(LockClient::close);
        }
      }
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + server.port())) {
        TcpServerStats stats = TcpServerStats.fetch(provider).orElseThrow();
        out.append(
            String.format(
                Locale.ROOT,
                "%nThe lock server's own hand-off histogram (`STATS`, lock freed to grant handed"
                    + " to the socket) over the run: %,d hand-offs, p50 <= %s ms, p99 <= %s ms.%n",
                stats.count("handoffs"),
                stats.fields().get("handoff_p50_le_ms"),
                stats.fields().get("handoff_p99_le_ms")));
        findings.limits.add(
            "**Hand-off: thread scheduling.** "
                + String.join("; ", handoffs)
                + ". Inside the lock server a hand-off (release read to grant written) takes p50"
                + " <= "
                + stats.fields().get("handoff_p50_le_ms")
                + " ms by its own histogram; the rest is four clients' threads and event loops"
                + " waking up on two shared cores, which is what the tails of both systems are"
                + " made of.");
      }
    }
    out.append('\n');
    return out.toString();
  }
}
