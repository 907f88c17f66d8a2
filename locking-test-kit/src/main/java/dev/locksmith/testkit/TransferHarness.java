package dev.locksmith.testkit;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
  private static final String[] CHILD_OPTIONS = {"-Xmx128m", "-XX:TieredStopAtLevel=1"};
  private static final int LOG_LINES = 8;

  private TransferHarness() {}

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
      List<String> all = new ArrayList<>(history.violations());
      if (transfers() != expectedTransfers) {
        all.add("recorded " + transfers() + " transfers, expected " + expectedTransfers);
      }
      all.addAll(failures);
      for (int i = 0; i < exitCodes.size(); i++) {
        if (exitCodes.get(i) != 0) {
          all.add(
              "process "
                  + i
                  + (exitCodes.get(i) == -1
                      ? " did not finish in time"
                      : " exited with " + exitCodes.get(i))
                  + (i < logs.size() ? "; " + tail(logs.get(i)) : ""));
        }
      }
      return all;
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
      return transfers()
          + "/"
          + expectedTransfers
          + " transfers by "
          + processes
          + " processes x "
          + threads
          + " threads over "
          + history.accounts().size()
          + " accounts in "
          + elapsed.toMillis()
          + " ms (start-up "
          + startUp.toMillis()
          + " ms, slowest warm-up "
          + slowestWarmUp.toMillis()
          + " ms, "
          + warmUpRetries
          + " warm-up retries); "
          + history.processes()
          + " processes ran transfers, "
          + history.processChanges()
          + " hand-overs between them, "
          + history.startedDuringAnother()
          + " started during another (seed "
          + seed
          + ", "
          + violations().size()
          + " violations)";
    }

    private static String tail(Path log) {
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return "last lines of "
            + log
            + ": "
            + String.join(
                " | ", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
      } catch (IOException e) {
        return "output " + log + " unreadable: " + e;
      }
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
      List<ChildJvm> children = new ArrayList<>();
      List<CompletableFuture<TransferContender.WarmUp>> warmUps = new ArrayList<>();
      List<Integer> exitCodes = new ArrayList<>();
      List<Path> logs = new ArrayList<>();
      ExecutorService readers = Executors.newFixedThreadPool(processes, Builder::daemon);
      long started = System.nanoTime();
      long end = started + deadline.toNanos();
      long go;
      try {
        for (int i = 0; i < processes; i++) {
          Path log = workDir.resolve("transfers-" + i + ".out");
          logs.add(log);
          List<String> args = new ArrayList<>(List.of(url, Integer.toString(i)));
          args.addAll(plan.toArgs());
          ChildJvm child =
              ChildJvm.builder(TransferContender.class)
                  .jvmOptions(CHILD_OPTIONS)
                  .args(args)
                  .output(log)
                  .pipeStdin()
                  .pipeStdout()
                  .start();
          children.add(child);
          CompletableFuture<TransferContender.WarmUp> warmUp = new CompletableFuture<>();
          warmUps.add(warmUp);
          readers.execute(() -> readReady(child, warmUp));
        }
        awaitAll(warmUps, end);
        go = System.nanoTime();
        for (ChildJvm child : children) {
          try {
            child.send("go");
          } catch (UncheckedIOException ended) {
            // it ended before the start: its exit code and records tell why
          }
        }
        for (ChildJvm child : children) {
          try {
            exitCodes.add(child.awaitExit(Duration.ofNanos(Math.max(0, end - System.nanoTime()))));
          } catch (IllegalStateException timedOut) { // killed by awaitExit
            exitCodes.add(-1);
          }
        }
      } finally {
        children.forEach(ChildJvm::close);
        readers.shutdownNow();
      }
      return collect(plan, exitCodes, logs, started, go, warmUps);
    }

    /**
     * Reads a child's standard output: completes {@code warmUp} from its {@code ready} line (or
     * fails it at the end of the output without one), then drains the rest.
     */
    private static void readReady(
        ChildJvm child, CompletableFuture<TransferContender.WarmUp> warmUp) {
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.process().getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (!warmUp.isDone() && line.startsWith(TransferContender.READY + " ")) {
            warmUp.complete(TransferContender.WarmUp.parse(line));
          }
        }
      } catch (IOException | RuntimeException e) {
        warmUp.completeExceptionally(e);
      } finally {
        warmUp.completeExceptionally(new IllegalStateException(child + " ended before ready"));
      }
    }

    /** Waits until every future is done (in whatever way) or the deadline passes. */
    private static void awaitAll(
        List<CompletableFuture<TransferContender.WarmUp>> futures, long end)
        throws InterruptedException {
      try {
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
            .get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // a process that failed or never became ready shows in its exit code and records
      }
    }

    private static Thread daemon(Runnable task) {
      Thread thread = new Thread(task, "transfer-harness");
      thread.setDaemon(true);
      return thread;
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
      ExecutorService engines = Executors.newFixedThreadPool(processes, Builder::daemon);
      List<Future<Integer>> runs = new ArrayList<>();
      List<CompletableFuture<TransferContender.WarmUp>> warmUps = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      List<Integer> exitCodes = new ArrayList<>();
      long started = System.nanoTime();
      long end = started + deadline.toNanos();
      long go;
      try {
        for (int i = 0; i < processes; i++) {
          int process = i;
          CompletableFuture<TransferContender.WarmUp> warmUp = new CompletableFuture<>();
          warmUps.add(warmUp);
          TransferContender.StartGate gate =
              outcome -> {
                warmUp.complete(outcome);
                if (!start.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                  throw new TimeoutException("no word to start before the deadline");
                }
              };
          runs.add(
              engines.submit(
                  () -> {
                    try (Locksmith locksmith =
                        Locksmith.builder().defaultProvider(provider).build()) {
                      return TransferContender.run(locksmith, plan, process, gate);
                    } finally {
                      warmUp.completeExceptionally(
                          new IllegalStateException("process " + process + " ended before ready"));
                    }
                  }));
        }
        awaitAll(warmUps, end);
        go = System.nanoTime();
        start.countDown();
        for (Future<Integer> run : runs) {
          exitCodes.add(exitCode(run, end));
        }
      } finally {
        engines.shutdownNow();
      }
      return collect(plan, exitCodes, List.of(), started, go, warmUps);
    }

    private static int exitCode(Future<Integer> run, long end) throws InterruptedException {
      try {
        return run.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return -1;
      } catch (ExecutionException e) {
        Objects.requireNonNullElse(e.getCause(), e).printStackTrace();
        return 2;
      }
    }

    /** Writes the start balances and removes earlier records. */
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
      for (String account : names) {
        Files.writeString(
            plan.accountFile(account), Long.toString(startBalance), StandardCharsets.UTF_8);
      }
      for (int i = 0; i < processes; i++) {
        Files.deleteIfExists(plan.recordFile(i));
      }
      return plan;
    }

    /** Reads the records and balances, and checks them. */
    private Result collect(
        TransferPlan plan,
        List<Integer> exitCodes,
        List<Path> logs,
        long started,
        long go,
        List<CompletableFuture<TransferContender.WarmUp>> warmUps)
        throws IOException {
      long finished = System.nanoTime();
      Duration slowestWarmUp = Duration.ZERO;
      int warmUpRetries = 0;
      for (CompletableFuture<TransferContender.WarmUp> warmUp : warmUps) {
        if (warmUp.isDone() && !warmUp.isCompletedExceptionally()) {
          TransferContender.WarmUp outcome = warmUp.join();
          if (outcome.took().compareTo(slowestWarmUp) > 0) {
            slowestWarmUp = outcome.took();
          }
          warmUpRetries += outcome.attempts() - 1;
        }
      }
      List<TransferRecord> records = new ArrayList<>();
      List<String> failures = new ArrayList<>();
      for (int i = 0; i < processes; i++) {
        Path file = plan.recordFile(i);
        if (!Files.exists(file)) {
          continue;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (line.isBlank()) {
            continue;
          }
          if (TransferRecord.isTransferLine(line)) {
            try {
              records.add(TransferRecord.parse(line));
            } catch (IllegalArgumentException e) {
              failures.add("unreadable record in " + file + ": " + e.getMessage());
            }
          } else {
            failures.add(line.startsWith(TransferContender.FAILURE) ? line : file + ": " + line);
          }
        }
      }
      Map<String, Long> balances = new LinkedHashMap<>();
      for (String account : plan.accounts()) {
        Path file = plan.accountFile(account);
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
          balances.put(account, Long.parseLong(text));
        } catch (NumberFormatException e) {
          failures.add("account file " + file + " holds '" + text + "', not a balance");
          balances.put(account, 0L);
        }
      }
      return new Result(
          TransferHistory.check(records, balances, startBalance),
          processes,
          threads,
          processes * threads * transfers,
          failures,
          exitCodes,
          logs,
          Duration.ofNanos(go - started),
          slowestWarmUp,
          warmUpRetries,
          Duration.ofNanos(finished - go),
          seed);
    }

    private static int positive(int count, String what) {
      if (count < 1) {
        throw new IllegalArgumentException(what + " must be positive, was " + count);
      }
      return count;
    }
  }
}
