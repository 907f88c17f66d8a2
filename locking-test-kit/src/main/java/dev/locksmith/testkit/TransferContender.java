package dev.locksmith.testkit;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;

/**
 * The main class of a transfer JVM started by {@link TransferHarness}: its threads make random
 * transfers between accounts kept in plain files, each transfer taking both accounts' locks with
 * one engine call over both keys (WAIT within the plan's wait timeout), reading both balances,
 * moving an amount and writing both back. Each completed transfer appends a {@link TransferRecord}
 * line to the process's record file; each failure (a {@code LockTimeoutException} or anything else)
 * appends a {@code failure} line and ends that thread.
 *
 * <p>Before its transfers the process warms up: it takes and releases a lock of its own (two keys
 * no other process uses) until its provider answers, within the plan's wait timeout, so that
 * connecting to the store in a fresh JVM is not part of the transfers. Then it prints {@code ready
 * MILLIS ATTEMPTS} (how long the warm-up took, in how many attempts) on standard output and starts
 * its transfers when a line arrives on standard input, so that every process starts them at the
 * same moment.
 *
 * <p>Arguments: {@code URL PROCESS_INDEX} then the plan ({@link TransferPlan#toArgs()}). Exits 0
 * when every transfer ran, 1 when one failed, 2 when the process could not start its transfers.
 */
public final class TransferContender {
  /** The first word of a failure line. */
  static final String FAILURE = "failure";

  /** The first word of the line a child prints when it is ready to start its transfers. */
  static final String READY = "ready";

  private final Locksmith locksmith;
  private final TransferPlan plan;
  private final int process;
  private final Path records;
  private final long pid = ProcessHandle.current().pid();
  private final AtomicInteger failures = new AtomicInteger();

  private TransferContender(Locksmith locksmith, TransferPlan plan, int process) {
    this.locksmith = locksmith;
    this.plan = plan;
    this.process = process;
    this.records = plan.recordFile(process);
  }

  /**
   * Runs the contender; see the class comment for its arguments and exit codes.
   *
   * @param args the contender's settings, as the harness passes them
   */
  public static void main(String[] args) {
    int status;
    try {
      String url = args[0];
      int process = Integer.parseInt(args[1]);
      TransferPlan plan = TransferPlan.fromArgs(args, 2);
      LockProvider provider = LockProviders.create(url);
      try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
        status = run(locksmith, plan, process, TransferContender::readyOnStandardStreams);
      } finally {
        provider.close();
      }
    } catch (Throwable e) {
      e.printStackTrace();
      status = 2;
    }
    System.exit(status);
  }

  /** Prints that this process is ready and waits for the harness's word to start. */
  private static void readyOnStandardStreams(WarmUp warmUp) throws IOException {
    System.out.println(warmUp.toLine());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (in.readLine() == null) {
      throw new IOException("standard input closed before the word to start the transfers");
    }
  }

  /** Tells the harness that a process is ready, and returns when every process may start. */
  @FunctionalInterface
  interface StartGate {
    /**
     * Reports readiness and waits for the start.
     *
     * @param warmUp how the process's warm-up went
     */
    void ready(WarmUp warmUp) throws Exception;
  }

  /**
   * How a process's warm-up went.
   *
   * @param took how long the process took to get an answer from its provider
   * @param attempts how many warm-up locks it asked for: more than one when the provider did not
   *     answer the first (a slow first connection, say)
   */
  record WarmUp(Duration took, int attempts) {

    /** Parses a line written by {@link #toLine()}. */
    static WarmUp parse(String line) {
      String[] parts = line.strip().split(" ");
      if (parts.length != 3 || !parts[0].equals(READY)) {
        throw new IllegalArgumentException("not a ready line: '" + line + "'");
      }
      return new WarmUp(Duration.ofMillis(Long.parseLong(parts[1])), Integer.parseInt(parts[2]));
    }

    /** The line a child prints: {@code ready MILLIS ATTEMPTS}. */
    String toLine() {
      return READY + " " + took.toMillis() + " " + attempts;
    }
  }

  /**
   * Warms up ({@link #warmUp}), passes the start gate, then runs one process's transfers on {@code
   * plan.threads()} threads of its own through {@code locksmith}, waiting up to the plan's deadline
   * for them.
   *
   * @return the exit status: 0 when every transfer ran, 1 when one failed, 2 when the provider did
   *     not answer the warm-up or the start gate failed
   */
  static int run(Locksmith locksmith, TransferPlan plan, int process, StartGate gate)
      throws InterruptedException {
    TransferContender contender = new TransferContender(locksmith, plan, process);
    long started = System.nanoTime();
    try {
      int attempts = contender.warmUp();
      gate.ready(new WarmUp(Duration.ofNanos(System.nanoTime() - started), attempts));
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      e.printStackTrace();
      contender.failure(-1, -1, "no start: " + e);
      return 2;
    }
    return contender.transfers() == 0 ? 0 : 1;
  }

  /**
   * Takes and releases a lock over two keys of this process's own until the provider answers,
   * within the plan's wait timeout: a fresh JVM's first connection to the store can take seconds on
   * a loaded machine, and an engine whose first call or probe failed counts its provider down
   * (failing calls fast) until one is answered.
   *
   * @return how many attempts it took
   * @throws org.awaitility.core.ConditionTimeoutException naming the last failure when the provider
   *     did not answer in time
   */
  private int warmUp() {
    AtomicInteger attempts = new AtomicInteger();
    LockOptions options =
        LockOptions.named(plan.lockName() + "-warm-up")
            .withTtl(plan.ttl())
            .withOnBusy(OnBusy.FAIL)
            .withKeys("p" + process + "a", "p" + process + "b");
    Awaitility.await("provider answering process " + process + "'s warm-up lock")
        .atMost(plan.waitTimeout())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              attempts.incrementAndGet();
              try (Lease lease = locksmith.acquire(options)) {
                return lease.leases().size() == 2;
              }
            });
    return attempts.get();
  }

  /** Runs the threads and waits up to the deadline for them; returns how many failed. */
  private int transfers() throws InterruptedException {
    ExecutorService threads =
        Executors.newFixedThreadPool(
            plan.threads(),
            task -> {
              Thread thread = new Thread(task, "transfers-" + process);
              thread.setDaemon(true);
              return thread;
            });
    try {
      for (int w = 0; w < plan.threads(); w++) {
        int worker = w;
        threads.execute(() -> transfers(worker));
      }
      threads.shutdown();
      if (!threads.awaitTermination(plan.deadline().toMillis(), TimeUnit.MILLISECONDS)) {
        failure(-1, -1, "threads still running after the deadline of " + plan.deadline());
      }
    } finally {
      threads.shutdownNow();
    }
    return failures.get();
  }

  /** One thread's transfers; the first failure is recorded and ends them. */
  private void transfers(int worker) {
    SplittableRandom random =
        new SplittableRandom(plan.seed() ^ (((long) process << 32) | worker) * 0x9E3779B97F4A7C15L);
    List<String> accounts = plan.accounts();
    for (int n = 0; n < plan.transfers(); n++) {
      int f = random.nextInt(accounts.size());
      int t = (f + 1 + random.nextInt(accounts.size() - 1)) % accounts.size();
      String from = accounts.get(f);
      String to = accounts.get(t);
      List<String> keys = random.nextBoolean() ? List.of(from, to) : List.of(to, from);
      long amount = random.nextLong(1, 101);
      try {
        TransferRecord record = transfer(worker, n, keys, from, to, amount);
        append(record.toLine());
      } catch (Throwable e) {
        e.printStackTrace();
        failure(worker, n, e.toString() + " (keys " + keys + ")");
        return;
      }
    }
  }

  /** Takes both locks with one call, moves the amount, and returns the record. */
  private TransferRecord transfer(
      int worker, int sequence, List<String> keys, String from, String to, long amount)
      throws IOException {
    LockOptions options =
        LockOptions.named(plan.lockName())
            .withTtl(plan.ttl())
            .withOnBusy(OnBusy.WAIT)
            .withWaitTimeout(plan.waitTimeout())
            .withKeys(keys);
    long start;
    long end;
    long fromToken;
    long toToken;
    try (Lease lease = locksmith.acquire(options)) {
      start = System.nanoTime();
      fromToken = lease.lease(from).fencingToken();
      toToken = lease.lease(to).fencingToken();
      long fromBalance = read(from);
      long toBalance = read(to);
      LockSupport.parkNanos(100_000); // widens the window a lost update would need
      write(from, fromBalance - amount);
      write(to, toBalance + amount);
      lease.checkValid();
      end = System.nanoTime();
    }
    return new TransferRecord(
        process, worker, sequence, pid, from, to, amount, fromToken, toToken, start, end);
  }

  private long read(String account) throws IOException {
    Path file = plan.accountFile(account);
    String text = Files.readString(file, StandardCharsets.UTF_8).strip();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException("account file " + file + " holds '" + text + "', not a balance", e);
    }
  }

  /** A deliberately unsafe write: only the locks keep another transfer from seeing it half done. */
  private void write(String account, long balance) throws IOException {
    Files.writeString(plan.accountFile(account), Long.toString(balance), StandardCharsets.UTF_8);
  }

  private void failure(int worker, int sequence, String message) {
    failures.incrementAndGet();
    String line =
        String.join(
            " ",
            FAILURE,
            Integer.toString(process),
            Integer.toString(worker),
            Integer.toString(sequence),
            message.replace('\n', ' ').replace('\r', ' '));
    try {
      append(line);
    } catch (IOException e) {
      System.err.println(line);
      e.printStackTrace();
    }
  }

  private synchronized void append(String line) throws IOException {
    Files.writeString(
        records,
        line + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
