package dev.locksmith.benchmarks.renewal;

import dev.locksmith.benchmarks.report.Machine;
import dev.locksmith.benchmarks.report.ResultsSection;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Holds many leases at once on one engine and lets them renew: per provider, the renewal round
 * trips per second against the lease count (the target: at most a tenth), the threads the engine
 * runs renewals on, and the leases lost (must be 0). Writes {@code benchmarks/target/renewals.md}
 * and, with {@code --results FILE}, the section {@code renewals} of that file.
 *
 * <p>Options: {@code --leases N} (10,000), {@code --seconds S} (30, the time held after all were
 * taken), {@code --ttl DURATION} (PT3S), {@code --results FILE}. Every store is started here on
 * loopback: an in-process lock server (its per-connection limit raised above the lease count), a
 * {@code redis-server} of its own, a temporary lock directory.
 */
public final class Renewals {
  private Renewals() {}

  /** One provider's figures. */
  record Row(
      String system,
      int leases,
      double seconds,
      long roundTrips,
      long leasesRenewed,
      boolean batches,
      int renewalThreadsPeak,
      int threadsAdded,
      long lost) {
    double roundTripsPerSecond() {
      return roundTrips / seconds;
    }
  }

  /** Runs every provider and writes the report. */
  public static void main(String[] args) throws Exception {
    int leases = 10_000;
    long seconds = 30;
    Duration ttl = Duration.ofSeconds(3);
    Path results = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--leases" -> leases = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        case "--ttl" -> ttl = Duration.parse(args[++i]);
        case "--results" -> results = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option '"
                    + args[i]
                    + "'; expected --leases N, --seconds S, --ttl DURATION or --results FILE");
      }
    }
    String loadAtStart = Machine.loadAverage();
    List<Row> rows = new ArrayList<>();
    Path dir = Files.createTempDirectory("locksmith-renewals");
    rows.add(
        run(
            "file",
            "file://" + dir.toAbsolutePath() + "/locks?create-dirs=true",
            leases,
            seconds,
            ttl));
    try (LockServer server =
        LockServer.builder().port(0).maxLocksPerConnection(leases + 1024).build()) {
      rows.add(run("tcp", "tcp://127.0.0.1:" + server.start(), leases, seconds, ttl));
    }
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      rows.add(run("redis", redis.url(), leases, seconds, ttl));
    }
    String md = report(rows, leases, seconds, ttl, loadAtStart);
    System.out.println(md);
    Path out = Path.of("benchmarks/target/renewals.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, md);
    if (results != null) {
      ResultsSection.RENEWALS.write(results, md);
    }
  }

  /** Holds {@code leases} leases through {@code url} for {@code seconds} and counts renewals. */
  static Row run(String system, String url, int leases, long seconds, Duration ttl)
      throws InterruptedException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    LongAdder lost = new LongAdder();
    CountingProvider provider = new CountingProvider(LockProviders.create(url));
    int before = threads.getThreadCount();
    int renewalPeak = 0;
    // The engine closes only the providers it made from URLs: this one is closed here, after it.
    try (provider;
        Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(provider)
                .listener(LockListener.onLost((event, reason) -> lost.increment()))
                .build()) {
      List<Lease> held = new ArrayList<>(leases);
      LockOptions options = LockOptions.named("renewals").withTtl(ttl);
      for (int i = 0; i < leases; i++) {
        held.add(locksmith.acquire(options.withKey(Integer.toString(i))));
      }
      threads.resetPeakThreadCount();
      long tripsAtStart = provider.roundTrips();
      long renewedAtStart = provider.leasesRenewed.sum();
      long start = System.nanoTime();
      long end = start + Duration.ofSeconds(seconds).toNanos();
      while (System.nanoTime() - end < 0) {
        Thread.sleep(200); // sampling the renewal threads while the leases renew
        renewalPeak = Math.max(renewalPeak, renewalThreads(threads));
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      long trips = provider.roundTrips() - tripsAtStart;
      long renewed = provider.leasesRenewed.sum() - renewedAtStart;
      int added = threads.getPeakThreadCount() - before;
      held.forEach(Lease::close);
      return new Row(
          system,
          leases,
          elapsed,
          trips,
          renewed,
          provider.batches(),
          renewalPeak,
          added,
          lost.sum());
    }
  }

  /** Live threads whose name says they renew leases. */
  private static int renewalThreads(ThreadMXBean threads) {
    int count = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().toLowerCase(Locale.ROOT).contains("renew")) {
        count++;
      }
    }
    return count;
  }

  static String report(List<Row> rows, int leases, long seconds, Duration ttl, String load) {
    StringBuilder md = new StringBuilder();
    md.append("## Renewal at scale (issue 22)\n\n")
        .append(String.format(Locale.ROOT, "%,d", leases))
        .append(" leases held at once on one engine over one provider client, TTL ")
        .append(ttl.toMillis())
        .append(" ms (renewed every third of it), for ")
        .append(seconds)
        .append(" s after all were taken. A round trip is a `renew` call or one `renewAll` batch")
        .append(" where the provider takes a batch in one (else each lease of it). Target: round")
        .append(" trips per second at most a tenth of the lease count, one renewal thread,")
        .append(" no lease lost. Load average at the start ")
        .append(load)
        .append(". Command: `java -cp benchmarks/target/benchmarks.jar")
        .append(" dev.locksmith.benchmarks.renewal.Renewals --results benchmarks/RESULTS.md`.\n\n")
        .append("| provider | round trips/s | / leases | leases renewed/s | batches in one trip |")
        .append(" renewal threads (peak) | threads added | lost |\n")
        .append("|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (Row row : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| `%s` | %.0f | %.4f | %.0f | %s | %d | %d | %d |%n",
              row.system(),
              row.roundTripsPerSecond(),
              row.roundTripsPerSecond() / row.leases(),
              row.leasesRenewed() / row.seconds(),
              row.batches() ? "yes" : "no",
              row.renewalThreadsPeak(),
              row.threadsAdded(),
              row.lost()));
    }
    return md.toString();
  }
}
