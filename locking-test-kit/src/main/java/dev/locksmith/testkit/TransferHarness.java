package dev.locksmith.testkit;

import dev.locksmith.core.spi.LockProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Proves that locks over several keys cannot deadlock or let two holders in: starts N JVMs (default
 * 4) with T threads each (default 2) that make random transfers among 5 accounts kept in files,
 * each transfer taking both accounts' locks with one engine call over both keys, the keys in random
 * order ({@link TransferContender}). Then checks the combined history ({@link TransferHistory}):
 * every transfer ran, the total balance is conserved and no update was lost, and per account no two
 * sections overlap and fencing tokens increase in section order. A deadlock shows as a {@code
 * LockTimeoutException} recorded by a child, a child that does not finish, and missing transfers.
 *
 * <pre>{@code
 * TransferHarness.Result result =
 *     TransferHarness.builder().transfers(15).run("tcp://127.0.0.1:" + port, dir);
 * assertThat(result.violations()).isEmpty();
 * System.out.println(result.figures());
 * }</pre>
 *
 * <p>Each process first warms up until its provider answers (a fresh JVM's first connection to a
 * store can take seconds on a loaded machine); when every process is ready they all start their
 * transfers at once. {@link Result#figures()} gives the start-up apart from the transfers.
 *
 * <p>Child JVMs get the class path of the calling JVM, so the provider under test is on it. {@link
 * Builder#runInThreads} runs the same transfers in this JVM, one engine per "process", for an
 * in-process provider.
 */
public final class TransferHarness {
  private TransferHarness() {}

  /** A daemon thread named {@code transfer-harness}, as every thread the harness starts. */
  static Thread daemon(Runnable task) {
    Thread thread = new Thread(task, "transfer-harness");
    thread.setDaemon(true);
    return thread;
  }

  /**
   * A harness with the defaults: 4 processes × 2 threads × 15 transfers among 5 accounts.
   *
   * @return a harness with the defaults: 4 processes × 2 threads × 15 transfers among 5 accounts
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs the default transfers in child JVMs through {@code url}; see {@link Builder#run}.
   *
   * @param url the provider URL every process uses
   * @param workDir where processes write their logs and records
   * @return the result
   * @throws IOException when an I/O operation fails
   * @throws InterruptedException when interrupted
   */
  public static Result run(String url, Path workDir) throws IOException, InterruptedException {
    return builder().run(url, workDir);
  }

  /**
   * The outcome of a run.
   *
   * @param history the checked transfers and accounts
   * @param processes how many processes ran (JVMs, or engines in one JVM)
   * @param threads threads per process
   * @param expectedTransfers how many transfers should have run
   * @param failures what the processes reported as failed: {@code failure process worker sequence
   *     message} lines, and unreadable records or account files
   * @param exitCodes each process's exit code: 0 when every transfer ran, 1 when one failed, 2 when
   *     it could not start its transfers, -1 when it did not finish in time
   * @param logs each child's output file (empty in one JVM)
   * @param startUp from the first start until every process was ready (its provider answered its
   *     warm-up lock) and all were told to start their transfers
   * @param slowestWarmUp the longest a process took to get an answer from its provider
   * @param warmUpRetries how many warm-up attempts failed in all processes (the provider did not
   *     answer them)
   * @param elapsed the transfers: from the word to start to the last exit
   * @param seed the random seed the transfers were drawn with
   */
  public record Result(
      TransferHistory history,
      int processes,
      int threads,
      int expectedTransfers,
      List<String> failures,
      List<Integer> exitCodes,
      List<Path> logs,
      Duration startUp,
      Duration slowestWarmUp,
      int warmUpRetries,
      Duration elapsed,
      long seed) {

    /**
     * Copies the lists.
     *
     * @param history see {@link #history()}
     * @param processes see {@link #processes()}
     * @param threads see {@link #threads()}
     * @param expectedTransfers see {@link #expectedTransfers()}
     * @param failures see {@link #failures()}
     * @param exitCodes see {@link #exitCodes()}
     * @param logs see {@link #logs()}
     * @param startUp see {@link #startUp()}
     * @param slowestWarmUp see {@link #slowestWarmUp()}
     * @param warmUpRetries see {@link #warmUpRetries()}
     * @param elapsed see {@link #elapsed()}
     * @param seed see {@link #seed()}
     */
    public Result {
      failures = List.copyOf(failures);
      exitCodes = List.copyOf(exitCodes);
      logs = List.copyOf(logs);
    }

    /**
     * How many transfers ran to completion.
     *
     * @return how many transfers ran to completion
     */
    public int transfers() {
      return history.transfers().size();
    }

    /**
     * Every violation: the history's (balances, overlaps, fencing tokens), missing transfers, the
     * processes' failures, and processes that did not exit 0 (with the end of their output).
     *
     * @return every violation: the history's (balances, overlaps, fencing tokens), missing
     *     transfers, the processes' failures, and processes that did not exit 0 (with the end of
     *     their output)
     */
    public List<String> violations() {
      return TransferViolations.of(this);
    }

    /**
     * One line of figures: transfers, processes, threads, accounts, elapsed time (and start-up),
     * how interleaved the transfers ran ({@link TransferHistory#processChanges()}, {@link
     * TransferHistory#startedDuringAnother()}), the seed and the number of violations.
     *
     * @return one line of figures: transfers, processes, threads, accounts, elapsed time (and
     *     start-up), how interleaved the transfers ran ({@link TransferHistory#processChanges()},
     *     {@link TransferHistory#startedDuringAnother()}), the seed and the number of violations
     */
    public String figures() {
      return TransferFigures.of(this);
    }
  }

  /** How many processes, threads, transfers and accounts; the lock's TTL and wait timeout. */
  public static final class Builder {
    private int processes = 4;
    private int threads = 2;
    private int transfers = 15;
    private int accounts = 5;
    private long startBalance = 1_000;
    private Duration ttl = Duration.ofSeconds(10);
    private Duration waitTimeout = Duration.ofSeconds(60);
    private Duration deadline = Duration.ofMinutes(3);
    private long seed = System.nanoTime();
    private String lockName = "transfer-" + Long.toHexString(System.nanoTime());

    private Builder() {}

    /**
     * How many JVMs (or engines, in one JVM); default 4.
     *
     * @param count how many JVMs (or engines, in one JVM); default 4
     * @return this builder
     */
    public Builder processes(int count) {
      this.processes = positive(count, "processes");
      return this;
    }

    /**
     * Threads per process; default 2.
     *
     * @param count threads per process; default 2
     * @return this builder
     */
    public Builder threads(int count) {
      this.threads = positive(count, "threads");
      return this;
    }

    /**
     * Transfers per thread; default 15.
     *
     * @param count transfers per thread; default 15
     * @return this builder
     */
    public Builder transfers(int count) {
      this.transfers = positive(count, "transfers");
      return this;
    }

    /**
     * How many accounts; default 5.
     *
     * @param count how many accounts; default 5
     * @return this builder
     */
    public Builder accounts(int count) {
      if (count < 2) {
        throw new IllegalArgumentException("accounts must be at least 2, was " + count);
      }
      this.accounts = count;
      return this;
    }

    /**
     * Every account's balance at the start; default 1000.
     *
     * @param balance every account's balance at the start; default 1000
     * @return this builder
     */
    public Builder startBalance(long balance) {
      this.startBalance = balance;
      return this;
    }

    /**
     * Each lease's TTL, renewed while held; default 10 s.
     *
     * @param leaseTtl each lease's TTL, renewed while held; default 10 s
     * @return this builder
     */
    public Builder ttl(Duration leaseTtl) {
      this.ttl = Objects.requireNonNull(leaseTtl, "ttl");
      return this;
    }

    /**
     * How long one transfer waits for both locks; default 60 s.
     *
     * @param timeout how long one transfer waits for both locks; default 60 s
     * @return this builder
     */
    public Builder waitTimeout(Duration timeout) {
      this.waitTimeout = Objects.requireNonNull(timeout, "waitTimeout");
      return this;
    }

    /**
     * How long the whole run may take before unfinished processes are killed; default 3 min.
     *
     * @param runDeadline how long the whole run may take before unfinished processes are killed;
     *     default 3 min
     * @return this builder
     */
    public Builder deadline(Duration runDeadline) {
      this.deadline = Objects.requireNonNull(runDeadline, "deadline");
      return this;
    }

    /**
     * The random seed the transfers are drawn with; default: from the clock.
     *
     * @param randomSeed the random seed the transfers are drawn with; default: from the clock
     * @return this builder
     */
    public Builder seed(long randomSeed) {
      this.seed = randomSeed;
      return this;
    }

    /**
     * The lock's name, each account locked as {@code name:account}; default: a fresh name.
     *
     * @param name the lock's name, each account locked as {@code name:account}; default: a fresh
     *     name
     * @return this builder
     */
    public Builder lockName(String name) {
      this.lockName = Objects.requireNonNull(name, "lockName");
      return this;
    }

    /**
     * Runs the transfers in child JVMs, each with its own engine over {@code url}, the accounts and
     * records in {@code workDir} (its earlier accounts and records replaced), then checks them.
     *
     * @param url the provider URL every process uses
     * @param workDir where processes write their logs and records
     * @return the result
     * @throws IOException when an I/O operation fails
     * @throws InterruptedException when interrupted
     */
    public Result run(String url, Path workDir) throws IOException, InterruptedException {
      TransferPlan plan = prepare(workDir);
      TransferRun run = TransfersInChildJvms.run(url, workDir, plan, processes, deadline);
      return TransferResults.collect(plan, processes, startBalance, run);
    }

    /**
     * Runs the transfers in this JVM: one engine per process over {@code provider} (which stays
     * open), each with its own threads, the accounts and records in {@code workDir}; then checks
     * them. For in-process providers such as {@code mem:}.
     *
     * @param provider the provider every thread uses
     * @param workDir where the records are written
     * @return the result
     * @throws IOException when an I/O operation fails
     * @throws InterruptedException when interrupted
     */
    public Result runInThreads(LockProvider provider, Path workDir)
        throws IOException, InterruptedException {
      TransferPlan plan = prepare(workDir);
      TransferRun run = TransfersInThreads.run(provider, plan, processes, deadline);
      return TransferResults.collect(plan, processes, startBalance, run);
    }

    /** The plan for a run in {@code workDir}, its start balances written and old records gone. */
    private TransferPlan prepare(Path workDir) throws IOException {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < accounts; i++) {
        names.add("account-" + i);
      }
      TransferPlan plan =
          new TransferPlan(
              lockName,
              Files.createDirectories(workDir).toAbsolutePath(),
              names,
              threads,
              transfers,
              ttl,
              waitTimeout,
              seed,
              deadline);
      plan.resetFiles(processes, startBalance);
      return plan;
    }

    private static int positive(int count, String what) {
      if (count < 1) {
        throw new IllegalArgumentException(what + " must be positive, was " + count);
      }
      return count;
    }
  }
}
