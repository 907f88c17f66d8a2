package dev.locksmith.benchmarks.redis;

import com.sun.management.OperatingSystemMXBean;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where the time of one uncontended lock+unlock goes on a machine whose cores the client and {@code
 * redis-server} share: for each lock of {@link RedisProviderBenchmark}, the wall time per operation
 * beside the CPU time the client process and the server each spend on it. When client plus server
 * CPU per operation, divided by the cores, comes near the wall time, the lock is bound by CPU, not
 * by round trips: it can only get faster by costing less CPU, on either side.
 *
 * <p>Each lock runs {@value #WARM_UP} operations to warm up. Then {@value #ROUNDS} rounds measure
 * {@value #MEASURED} operations of each lock between them, the locks taking turns (each round
 * starting one lock further on), so that a slower moment of the machine falls on every lock alike;
 * each figure is the median of a lock's rounds. Every phase stops after {@value #BOUND_SECONDS} s
 * whatever its count.
 */
public final class CpuPerLock {
  /** Operations run to warm up, per lock. */
  public static final int WARM_UP = 20_000;

  /** Operations measured, per lock, over all rounds. */
  public static final int MEASURED = 45_000;

  /** How many times the locks take turns being measured. */
  public static final int ROUNDS = 3;

  /** The most seconds a phase (warm-up or measurement) of one lock runs, whatever its count. */
  public static final long BOUND_SECONDS = 30;

  /** One lock's figures, per operation, in microseconds. */
  public record Row(
      String lock, long operations, double wallMicros, double clientMicros, double serverMicros) {
    /** Client and server CPU per operation. */
    public double totalMicros() {
      return clientMicros + serverMicros;
    }
  }

  private CpuPerLock() {}

  /**
   * Runs every lock of {@link RedisProviderBenchmark} against one {@code redis-server} of its own
   * and prints the table.
   *
   * @param args none
   * @throws Exception what a lock call threw
   */
  public static void main(String[] args) throws Exception {
    for (Row row : measure()) {
      System.out.println(format(row));
    }
  }

  /**
   * Measures every lock, in a fixed order, against one {@code redis-server} started for the run.
   *
   * @return one row per lock
   * @throws Exception what a lock call threw
   */
  public static List<Row> measure() throws Exception {
    RedisProviderBenchmark bench = new RedisProviderBenchmark();
    bench.setUp();
    try {
      Map<String, Op> locks = new LinkedHashMap<>();
      locks.put("oneRoundTrip", bench::oneRoundTrip);
      locks.put("locksmithAnnotated", bench::locksmithAnnotated);
      locks.put("rawFloor", bench::rawFloor);
      locks.put("rawFloorReleaseAsync", bench::rawFloorReleaseAsync);
      locks.put("redissonRLock", bench::redissonRLock);
      locks.put("shedLock", bench::shedLock);
      locks.put("shedLockSafeUpdate", bench::shedLockSafeUpdate);
      locks.put("springIntegrationRegistry", bench::springIntegrationRegistry);
      RedisServerProcess server = bench.server();
      List<Map.Entry<String, Op>> entries = new ArrayList<>(locks.entrySet());
      for (Map.Entry<String, Op> lock : entries) {
        run(lock.getValue(), WARM_UP);
      }
      List<List<Row>> rounds = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        rounds.add(new ArrayList<>());
      }
      for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < entries.size(); i++) {
          int index = (round + i) % entries.size();
          Map.Entry<String, Op> lock = entries.get(index);
          rounds.get(index).add(measure(lock.getKey(), lock.getValue(), server));
        }
      }
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        rows.add(median(entries.get(i).getKey(), rounds.get(i)));
      }
      return rows;
    } finally {
      bench.tearDown();
    }
  }

  /** One round of one lock: {@code MEASURED / ROUNDS} operations. */
  private static Row measure(String name, Op op, RedisServerProcess server) throws Exception {
    double serverBefore = serverCpuSeconds(server);
    long clientBefore = clientCpuNanos();
    long start = System.nanoTime();
    long done = run(op, MEASURED / ROUNDS);
    long wall = System.nanoTime() - start;
    long client = clientCpuNanos() - clientBefore;
    double serverCpu = serverCpuSeconds(server) - serverBefore;
    return new Row(
        name, done, wall / 1_000.0 / done, client / 1_000.0 / done, serverCpu * 1_000_000.0 / done);
  }

  /** The median of each figure over a lock's rounds; the operations are summed. */
  private static Row median(String name, List<Row> rounds) {
    return new Row(
        name,
        rounds.stream().mapToLong(Row::operations).sum(),
        median(rounds.stream().mapToDouble(Row::wallMicros).toArray()),
        median(rounds.stream().mapToDouble(Row::clientMicros).toArray()),
        median(rounds.stream().mapToDouble(Row::serverMicros).toArray()));
  }

  private static double median(double[] values) {
    Arrays.sort(values);
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }

  /** A row as a line of text. */
  static String format(Row row) {
    return String.format(
        Locale.ROOT,
        "%-26s %7d ops  wall %6.1f us  client cpu %6.1f us  server cpu %5.1f us  cpu/2 cores"
            + " %6.1f us",
        row.lock(),
        row.operations(),
        row.wallMicros(),
        row.clientMicros(),
        row.serverMicros(),
        row.totalMicros() / Runtime.getRuntime().availableProcessors());
  }

  private static long run(Op op, int count) throws Exception {
    long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    long done = 0;
    try {
      while (done < count && System.nanoTime() - bound < 0) {
        op.run();
        done++;
      }
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
    return done;
  }

  private static long clientCpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** {@code used_cpu_sys} plus {@code used_cpu_user} of {@code INFO cpu}, in seconds. */
  private static double serverCpuSeconds(RedisServerProcess server) throws IOException {
    Object info = server.call("INFO", "cpu");
    String text = info instanceof byte[] bytes ? new String(bytes) : String.valueOf(info);
    double total = 0;
    for (String line : text.split("\r?\n")) {
      if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
        total += Double.parseDouble(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    return total;
  }

  @FunctionalInterface
  private interface Op {
    void run() throws Throwable;
  }
}
