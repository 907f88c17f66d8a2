package dev.locksmith.testkit;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The main class of a transfer JVM started by {@link TransferHarness}: its threads make random
 * transfers between accounts kept in plain files, each transfer taking both accounts' locks with
 * one engine call over both keys (WAIT within the plan's wait timeout), reading both balances,
 * moving an amount and writing both back. Each completed transfer appends a {@link TransferRecord}
 * line to the process's record file; each failure (a {@code LockTimeoutException} or anything else)
 * appends a {@code failure} line and ends that thread.
 *
 * <p>Arguments: {@code URL PROCESS_INDEX} then the plan ({@link TransferPlan#toArgs()}). Exits 0
 * when every transfer ran, 1 when one failed, 2 when the process could not start its transfers.
 */
public final class TransferContender {
  /** The first word of a failure line. */
  static final String FAILURE = "failure";

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

  /** Runs the contender; see the class comment for its arguments and exit codes. */
  public static void main(String[] args) {
    int status;
    try {
      String url = args[0];
      int process = Integer.parseInt(args[1]);
      TransferPlan plan = TransferPlan.fromArgs(args, 2);
      LockProvider provider = LockProviders.create(url);
      try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
        status = run(locksmith, plan, process) == 0 ? 0 : 1;
      } finally {
        provider.close();
      }
    } catch (Throwable e) {
      e.printStackTrace();
      status = 2;
    }
    System.exit(status);
  }

  /**
   * Runs one process's transfers on {@code plan.threads()} threads of its own through {@code
   * locksmith}, waiting up to the plan's deadline for them.
   *
   * @return how many threads failed (0 when every transfer ran)
   */
  static int run(Locksmith locksmith, TransferPlan plan, int process) throws InterruptedException {
    TransferContender contender = new TransferContender(locksmith, plan, process);
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
        threads.execute(() -> contender.transfers(worker));
      }
      threads.shutdown();
      if (!threads.awaitTermination(plan.deadline().toMillis(), TimeUnit.MILLISECONDS)) {
        contender.failure(-1, -1, "threads still running after the deadline of " + plan.deadline());
      }
    } finally {
      threads.shutdownNow();
    }
    return contender.failures.get();
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
