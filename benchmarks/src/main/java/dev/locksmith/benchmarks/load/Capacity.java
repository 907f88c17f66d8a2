package dev.locksmith.benchmarks.load;

import dev.locksmith.benchmarks.report.Machine;
import dev.locksmith.benchmarks.report.ResultsSection;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.TcpServerStats;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far one lock server goes, side by side with {@code redis-server} on the same machine:
 * connections held open with one lease each, locks held at once and the bytes each costs, grants
 * per second at 32 and 256 clients on distinct keys, and hot-key hand-off latency. The lock server
 * runs in a JVM of its own with a fixed heap ({@code -Xmx1g} by default); clients run in this JVM,
 * on loopback only; every phase is bounded in count and time. Writes a Markdown section for {@code
 * RESULTS.md}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.load.Capacity \
 *     [--phases connections,locks,throughput,handoff] [--connections N] [--locks N]
 *     [--lock-connections N] [--clients 32,256] [--heap 1g] [--results benchmarks/RESULTS.md]
 * </pre>
 */
public final class Capacity {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);
  private static final Duration LOAD_LIMIT = Duration.ofMinutes(4);

  private final Options options;
  private final Path log;
  private final StringBuilder md = new StringBuilder();

  /** What bounds each figure, one bullet per phase, for the section's conclusion. */
  private final List<String> limits = new ArrayList<>();

  /** Grants per second the lock server gave pipelining clients in the locks phase, or 0. */
  private double pipelinedRate;

  private Capacity(Options options) throws IOException {
    this.options = options;
    Files.createDirectories(Path.of("benchmarks", "target"));
    this.log = Path.of("benchmarks", "target", "capacity-server.log").toAbsolutePath();
  }

  /** What to run and how big. */
  static final class Options {
    Set<String> phases =
        new LinkedHashSet<>(List.of("connections", "locks", "throughput", "handoff"));
    int connections = -1;
    int locks = 5_000_000;
    int lockConnections = 100;
    List<Integer> clients = List.of(32, 256);
    String heap = "1g";
    Duration warmup = Duration.ofSeconds(3);
    Duration window = Duration.ofSeconds(4);
    int rounds = 3;
    @Nullable Path results;
    List<String> args = List.of();
  }

  /** Runs the phases asked for and writes the section. */
  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    Capacity capacity = new Capacity(options);
    String section = capacity.run();
    Path out = Path.of("benchmarks", "target", "capacity.md");
    Files.writeString(out, section, StandardCharsets.UTF_8);
    LOG.info("wrote {}", out.toAbsolutePath());
    if (options.results != null) {
      ResultsSection.CAPACITY.write(options.results, section);
      LOG.info("updated the capacity section of {}", options.results.toAbsolutePath());
    }
    System.exit(0);
  }

  private String run() throws Exception {
    Instant start = Instant.now();
    String loadAtStart = Machine.loadAverage();
    StringBuilder body = new StringBuilder();
    int fdLimit = fdLimit();
    if (options.phases.contains("connections")) {
      body.append(connections(fdLimit));
    }
    if (options.phases.contains("locks")) {
      body.append(locks());
    }
    if (options.phases.contains("throughput")) {
      body.append(throughput());
    }
    if (options.phases.contains("handoff")) {
      body.append(handoff());
    }
    body.append("### Where the limits are\n\n");
    for (String limit : limits) {
      body.append("- ").append(limit).append('\n');
    }
    body.append('\n');
    md.append("## 3. Capacity of one lock server, side by side with redis-server\n\n");
    md.append("Written by `Capacity` (see `benchmarks/README.md`), not by `run.sh`:\n\n");
    md.append("```sh\n")
        .append("java -cp benchmarks/target/benchmarks.jar dev.locksmith.benchmarks.load.Capacity")
        .append(options.args.isEmpty() ? "" : " " + String.join(" ", options.args))
        .append("\n```\n\n");
    md.append("- **run at:** ").append(start.truncatedTo(ChronoUnit.SECONDS)).append(" (UTC)\n");
    md.append("- **commit:** ")
        .append(System.getProperty("locksmith.commit", "unknown"))
        .append('\n');
    md.append("- **took:** ")
        .append(Duration.between(start, Instant.now()).toSeconds())
        .append(" s\n");
    md.append("- **load average (1/5/15 min) at start / end:** ")
        .append(loadAtStart)
        .append(" / ")
        .append(Machine.loadAverage())
        .append('\n');
    md.append("- **open-file limit per process (`ulimit -n`):** ").append(fdLimit).append('\n');
    Map<String, String> machine = Machine.describe();
    md.append("- **machine:** ")
        .append(machine.get("CPU"))
        .append(", ")
        .append(machine.get("cores available to the JVM"))
        .append(" cores, ")
        .append(machine.get("memory"))
        .append("; ")
        .append(machine.get("JVM"))
        .append("; ")
        .append(machine.get("redis-server"))
        .append("\n\n");
    md.append(
        "The lock server runs in a JVM of its own (`-Xms"
            + options.heap
            + " -Xmx"
            + options.heap
            + " -XX:+UseG1GC`, limits raised so that only memory and file descriptors bound it);"
            + " redis-server runs as a process of its own (`--save \"\" --appendonly no`). Clients"
            + " run in the benchmark's JVM, on loopback. Server memory is measured in the"
            + " server: the lock server's live heap after full collections (and the process's"
            + " RSS), Redis's `used_memory` (and `used_memory_rss`), before and after.\n\n");
    md.append(body);
    return md.toString();
  }

  // ---------------------------------------------------------------- connections

  private String connections(int fdLimit) throws Exception {
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
        limits.add(
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

  // ---------------------------------------------------------------- locks

  private String locks() throws Exception {
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
          pipelinedRate = held.granted() / Math.max(1e-9, held.seconds());
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
          limits.add(
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

  // ---------------------------------------------------------------- throughput

  private String throughput() throws Exception {
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
        double tcpMedian = LoadBenchmarks.median(rounds.get("tcp"));
        double redisMedian = LoadBenchmarks.median(rounds.get("redis"));
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
                rounded(rounds.get("tcp")),
                rounded(rounds.get("redis")),
                LoadBenchmarks.median(serverCores.get("tcp")),
                LoadBenchmarks.median(serverCores.get("redis")),
                LoadBenchmarks.median(clientCores.get("tcp")),
                LoadBenchmarks.median(clientCores.get("redis"))));
        cpu.add(
            String.format(
                Locale.ROOT,
                "at %d clients the lock server answered %,.0f requests/s (two a cycle) on %.2f"
                    + " cores while its clients used %.2f (redis-server %.2f, its clients %.2f)",
                clients,
                2 * tcpMedian,
                LoadBenchmarks.median(serverCores.get("tcp")),
                LoadBenchmarks.median(clientCores.get("tcp")),
                LoadBenchmarks.median(serverCores.get("redis")),
                LoadBenchmarks.median(clientCores.get("redis"))));
      }
    }
    limits.add(
        "**Grants per second: the clients and the two cores, not the server.** "
            + String.join(", ", ratios)
            + " of raw Redis. "
            + capitalized(String.join("; ", cpu))
            + " (CPU time over each round's wall time, medians)."
            + (pipelinedRate > 0
                ? String.format(
                    Locale.ROOT,
                    " Clients that pipeline got %,.0f grants/s from the same server in the locks"
                        + " phase.",
                    pipelinedRate)
                : "")
            + " The server's one event loop is far from busy: the pace is set by the client"
            + " process (its threads waiting on each reply, its event loop) and by the two cores"
            + " that client, server and everything else on the machine share.");
    out.append('\n');
    return out.toString();
  }

  // ---------------------------------------------------------------- hand-off

  private String handoff() throws Exception {
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
        limits.add(
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

  // ---------------------------------------------------------------- helpers

  /** CPU seconds a process has used (user + system), from /proc; 0 where there is none. */
  private static double processCpu(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command; ticks of 1/100 s.
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static double redisCpu(RedisServerProcess redis) {
    try {
      Map<String, String> info = info(redis);
      return Double.parseDouble(info.get("used_cpu_user"))
          + Double.parseDouble(info.get("used_cpu_sys"));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static double ownCpu() {
    return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  private static String capitalized(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  private static String rounded(List<Double> values) {
    List<String> out = new ArrayList<>();
    for (double v : values) {
      out.add(String.format(Locale.ROOT, "%,.0f", v));
    }
    return String.join(", ", out);
  }

  private static String describe(HeldLocks held) {
    return String.format(
        Locale.ROOT,
        "%,d granted, %,d refused (first: %s), error %s, %.1f s",
        held.granted(),
        held.refused(),
        held.firstRefusal(),
        held.firstError(),
        held.seconds());
  }

  private static long perItem(long bytes, long items) {
    return items <= 0 ? 0 : Math.round((double) bytes / items);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.0f MiB", bytes / 1024.0 / 1024.0);
  }

  private static Map<String, String> info(RedisServerProcess redis) throws IOException {
    Object reply = redis.call("INFO");
    String text =
        reply instanceof byte[] bytes
            ? new String(bytes, StandardCharsets.UTF_8)
            : String.valueOf(reply);
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  private static String configMaxClients(RedisServerProcess redis) throws IOException {
    Object reply = redis.call("CONFIG", "GET", "maxclients");
    if (reply instanceof List<?> list && list.size() == 2) {
      Object value = list.get(1);
      return value instanceof byte[] bytes
          ? new String(bytes, StandardCharsets.UTF_8)
          : String.valueOf(value);
    }
    return String.valueOf(reply);
  }

  private static long delta(Map<String, String> before, Map<String, String> after, String key) {
    return Long.parseLong(after.get(key)) - Long.parseLong(before.get(key));
  }

  /** The soft limit on open files of this process, from /proc (20,000 when unknown). */
  static int fdLimit() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          return Integer.parseInt(line.substring(26).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return 20_000;
  }

  private static int openFds() {
    String[] fds = new java.io.File("/proc/self/fd").list();
    return fds == null ? 100 : fds.length;
  }

  private static Options parse(String[] args) {
    Options o = new Options();
    o.args = List.of(args);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (arg) {
        case "--phases" -> o.phases = new LinkedHashSet<>(List.of(value.split(",")));
        case "--connections" -> o.connections = Integer.parseInt(value);
        case "--locks" -> o.locks = Integer.parseInt(value);
        case "--lock-connections" -> o.lockConnections = Integer.parseInt(value);
        case "--clients" -> {
          List<Integer> clients = new ArrayList<>();
          for (String c : value.split(",")) {
            clients.add(Integer.parseInt(c));
          }
          o.clients = clients;
        }
        case "--heap" -> o.heap = value;
        case "--window" -> o.window = Duration.ofSeconds(Long.parseLong(value));
        case "--rounds" -> o.rounds = Integer.parseInt(value);
        case "--results" -> o.results = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
      }
      i++;
    }
    return o;
  }
}
