package dev.locksmith.benchmarks.load;

import static dev.locksmith.benchmarks.load.CapacityFigures.describe;
import static dev.locksmith.benchmarks.load.CapacityFigures.mib;
import static dev.locksmith.benchmarks.load.CapacityFigures.perItem;
import static dev.locksmith.benchmarks.load.Probes.delta;
import static dev.locksmith.benchmarks.load.Probes.info;

import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The locks phase of {@link Capacity}: locks held at once and the bytes each costs. */
final class LocksPhase {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);
  private static final Duration LOAD_LIMIT = Duration.ofMinutes(4);

  private LocksPhase() {}

  static String run(CapacityOptions options, Path log, CapacityFindings findings) throws Exception {
    int connections = options.lockConnections;
    int perConnection = Math.max(1, options.locks / connections);
    long total = (long) perConnection * connections;
    StringBuilder out = new StringBuilder("### Locks held at once\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "%,d connections each pipeline %,d acquisitions of distinct keys (`L<c>-<i>`, a"
                + " 30-character owner token of the Java client's form, ttl 1 h), a writer and a"
                + " reader thread per connection; every lease stays held.%n%n",
            connections,
            perConnection));
    out.append(
        "| system | locks asked | held | time to grant them all | grants/s (pipelined) | server"
            + " memory per lock | server memory in all |\n");
    out.append("|---|---:|---:|---:|---:|---:|---|\n");
    String limit;
    try (ServerJvm server = ServerJvm.start(options.heap, log)) {
      ServerJvm.Heap before = server.heap();
      LOG.info("locks: lock server, {} locks, before {}", total, before);
      try (HeldLocks held =
          HeldLocks.pipelined(
              Wire.LOCKSMITH, server.port(), connections, perConnection, "L", LOAD_LIMIT)) {
        LOG.info("locks: lock server {}", describe(held));
        if (server.isAlive()) {
          ServerJvm.Heap after = server.heap();
          long perLock = perItem(after.liveHeap() - before.liveHeap(), held.granted());
          findings.pipelinedRate = held.granted() / Math.max(1e-9, held.seconds());
          out.append(
              locksRow(
                  "locksmith-tcp",
                  total,
                  held,
                  String.format(Locale.ROOT, "%,d B heap", perLock),
                  String.format(
                      Locale.ROOT,
                      "%s live heap of %s max (%s before), %s RSS",
                      mib(after.liveHeap()),
                      mib(after.maxHeap()),
                      mib(before.liveHeap()),
                      mib(after.rss()))));
          limit =
              String.format(
                  Locale.ROOT,
                  "At %,d B a lock, a %s heap holds about %,d locks (the heap limit less the"
                      + " %s the idle server uses), before collections thrash.",
                  perLock,
                  mib(after.maxHeap()),
                  perLock <= 0 ? 0 : (after.maxHeap() - before.liveHeap()) / perLock,
                  mib(before.liveHeap()));
          findings.limits.add(
              String.format(
                  Locale.ROOT,
                  "**Locks held: the heap.** %,d B a lock: the lock's entry (~72 B: id, owner"
                      + " token kept as a shared head plus a number, fencing token, end, links),"
                      + " its id as a string (~56 B for `L12-34567`) and a few bytes of hash"
                      + " table and expiry heap; one timer serves every lease. %,d locks took %s"
                      + " of a %s heap, so about %,d fit. Longer lock ids, or owner tokens of"
                      + " another form (kept whole), cost their length more.",
                  perLock,
                  held.granted(),
                  mib(after.liveHeap() - before.liveHeap()),
                  mib(after.maxHeap()),
                  perLock <= 0 ? 0 : (after.maxHeap() - before.liveHeap()) / perLock));
        } else {
          out.append(locksRow("locksmith-tcp", total, held, "server died", "see " + log));
          limit = "The lock server's JVM died (out of memory?); its log is " + log + ".";
        }
      }
    }
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      Map<String, String> before = info(redis);
      try (HeldLocks held =
          HeldLocks.pipelined(
              Wire.REDIS, redis.port(), connections, perConnection, "L", LOAD_LIMIT)) {
        Map<String, String> after = info(redis);
        LOG.info("locks: redis {}", describe(held));
        out.append(
            locksRow(
                "redis-server",
                total,
                held,
                String.format(
                    Locale.ROOT,
                    "%,d B used_memory",
                    perItem(delta(before, after, "used_memory"), held.granted())),
                String.format(
                    Locale.ROOT,
                    "%s used_memory, %s RSS",
                    mib(Long.parseLong(after.get("used_memory"))),
                    mib(Long.parseLong(after.get("used_memory_rss"))))));
      }
    }
    out.append('\n').append(limit).append("\n\n");
    return out.toString();
  }

  private static String locksRow(
      String system, long asked, HeldLocks held, String per, String all) {
    return String.format(
        Locale.ROOT,
        "| %s | %,d | %,d%s | %.1f s | %,.0f | %s | %s |%n",
        system,
        asked,
        held.granted(),
        held.firstRefusal() != null
            ? " (refused: `" + held.firstRefusal() + "`)"
            : held.firstError() != null ? " (" + held.firstError() + ")" : "",
        held.seconds(),
        held.granted() / Math.max(1e-9, held.seconds()),
        per,
        all);
  }
}
