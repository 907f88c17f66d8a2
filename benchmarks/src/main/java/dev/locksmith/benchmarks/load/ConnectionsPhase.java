package dev.locksmith.benchmarks.load;

import static dev.locksmith.benchmarks.load.CapacityFigures.describe;
import static dev.locksmith.benchmarks.load.CapacityFigures.mib;
import static dev.locksmith.benchmarks.load.CapacityFigures.perItem;
import static dev.locksmith.benchmarks.load.Probes.configMaxClients;
import static dev.locksmith.benchmarks.load.Probes.delta;
import static dev.locksmith.benchmarks.load.Probes.info;
import static dev.locksmith.benchmarks.load.Probes.openFds;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.TcpServerStats;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The connections phase of {@link Capacity}: connections held open, one lease each. */
final class ConnectionsPhase {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);

  private ConnectionsPhase() {}

  static String run(CapacityOptions options, Path log, CapacityFindings findings, int fdLimit)
      throws Exception {
    int count = options.connections;
    if (count < 0) {
      // Each side needs a descriptor per connection; keep a margin for the JVMs' own files.
      count = Math.min(20_000, fdLimit - openFds() - 150);
    }
    StringBuilder out = new StringBuilder("### Connections held open, one lease each\n\n");
    out.append(
        "Connections opened by four threads of one client process; each sends one"
            + " `ACQUIRE conn-i` (Redis: `SET conn-i token NX PX 3600000`) and stays open.\n\n");
    out.append(
        "| system | connections asked | held, each with its lease | refused | time | server"
            + " memory per connection | server memory in all |\n");
    out.append("|---|---:|---:|---:|---:|---:|---|\n");
    try (ServerJvm server = ServerJvm.start(options.heap, log)) {
      ServerJvm.Heap before = server.heap();
      LOG.info("connections: lock server, {} connections, before {}", count, before);
      try (HeldLocks held = HeldLocks.oneEach(Wire.LOCKSMITH, server.port(), count, "conn-")) {
        ServerJvm.Heap after = server.heap();
        LOG.info("connections: lock server after {}: {}", after, describe(held));
        String served = stillServed(server.port(), held);
        long perConnection = perItem(after.liveHeap() - before.liveHeap(), held.granted());
        findings.limits.add(
            String.format(
                Locale.ROOT,
                "**Connections: the open-file limit.** Each connection is a file descriptor in the"
                    + " server and one in the client, and `ulimit -n` is %,d per process here (the"
                    + " hard limit too, so it cannot be raised without privileges); the server"
                    + " held %,d connections with a lease each, as many as fit beside the"
                    + " descriptors the JVMs use, and so did redis-server, which caps"
                    + " `maxclients` at the same limit. Memory is far from the bound: at %,d B of"
                    + " heap a connection (Netty channel, pipeline, buffers, session) a %s heap"
                    + " would hold about %,d.",
                fdLimit,
                held.granted(),
                perConnection,
                mib(after.maxHeap()),
                perConnection <= 0 ? 0 : (after.maxHeap() - before.liveHeap()) / perConnection));
        out.append(
            row(
                "locksmith-tcp",
                count,
                held,
                String.format(
                    Locale.ROOT,
                    "%,d B heap, %,d B RSS",
                    perItem(after.liveHeap() - before.liveHeap(), held.granted()),
                    perItem(after.rss() - before.rss(), held.granted())),
                String.format(
                    Locale.ROOT,
                    "%s live heap, %s RSS; %s",
                    mib(after.liveHeap()),
                    mib(after.rss()),
                    served)));
      }
    }
    try (RedisServerProcess redis =
        TestRedis.startDedicated("--maxclients", Integer.toString(count + 64))) {
      Map<String, String> before = info(redis);
      try (HeldLocks held = HeldLocks.oneEach(Wire.REDIS, redis.port(), count, "conn-")) {
        Map<String, String> after = info(redis);
        LOG.info(
            "connections: redis after {} clients: {}",
            after.get("connected_clients"),
            describe(held));
        long used = delta(before, after, "used_memory");
        long rss = delta(before, after, "used_memory_rss");
        out.append(
            row(
                "redis-server",
                count,
                held,
                String.format(
                    Locale.ROOT,
                    "%,d B used_memory, %,d B RSS",
                    perItem(used, held.granted()),
                    perItem(rss, held.granted())),
                String.format(
                    Locale.ROOT,
                    "%s used_memory, %s RSS; maxclients %s",
                    mib(Long.parseLong(after.get("used_memory"))),
                    mib(Long.parseLong(after.get("used_memory_rss"))),
                    configMaxClients(redis))));
      }
    }
    out.append('\n');
    return out.toString();
  }

  /** Whether a new client is served while the connections are held, and what STATS says. */
  private static String stillServed(int port, HeldLocks held) {
    try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + port)) {
      boolean busy =
          provider.tryAcquire(LockRequest.of("conn-0", Duration.ofSeconds(10))).isEmpty();
      long worst = 0;
      for (int i = 0; i < 20; i++) {
        long start = System.nanoTime();
        provider.status("conn-" + i);
        worst = Math.max(worst, System.nanoTime() - start);
      }
      TcpServerStats stats = TcpServerStats.fetch(provider).orElseThrow();
      return String.format(
          Locale.ROOT,
          "a new client's STATUS answered within %.2f ms (worst of 20), its ACQUIRE of conn-0"
              + " %s; STATS: %,d connections, %,d held",
          worst / 1e6,
          busy ? "BUSY, as it should be" : "granted: wrong",
          stats.connections(),
          stats.heldLocks());
    } catch (RuntimeException e) {
      return "a new client failed: " + e.getMessage();
    }
  }

  private static String row(String system, int asked, HeldLocks held, String per, String all) {
    return String.format(
        Locale.ROOT,
        "| %s | %,d | %,d | %,d%s | %.1f s | %s | %s |%n",
        system,
        asked,
        held.granted(),
        held.refused() + (asked - held.granted() - held.refused()),
        held.firstRefusal() != null
            ? " (`" + held.firstRefusal() + "`)"
            : held.firstError() != null ? " (" + held.firstError() + ")" : "",
        held.seconds(),
        per,
        all);
  }
}
