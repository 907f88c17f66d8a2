package dev.locksmith.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What every transfer contender does: its accounts (files in the work directory), how many threads
 * and transfers, the lock's name, TTL and wait timeout, the random seed, and how long a process may
 * take in all. Passed to a child JVM as arguments ({@link #toArgs()}, {@link #fromArgs}).
 *
 * @param lockName the lock's name; each account is locked as {@code lockName:account}
 * @param workDir where the account files and the record files are
 * @param accounts the accounts' names
 * @param threads threads per process
 * @param transfers transfers per thread
 * @param ttl each lease's TTL (renewed while held)
 * @param waitTimeout how long one transfer waits for both locks
 * @param seed the random seed; each thread's own is derived from it
 * @param deadline how long a process may take for all its transfers
 */
record TransferPlan(
    String lockName,
    Path workDir,
    List<String> accounts,
    int threads,
    int transfers,
    Duration ttl,
    Duration waitTimeout,
    long seed,
    Duration deadline) {

  private static final int ARGS = 9;

  TransferPlan {
    accounts = List.copyOf(accounts);
    if (accounts.size() < 2) {
      throw new IllegalArgumentException("transfers need at least 2 accounts, got " + accounts);
    }
    if (threads < 1 || transfers < 0) {
      throw new IllegalArgumentException(
          "threads must be positive and transfers not negative, got "
              + threads
              + " and "
              + transfers);
    }
  }

  /** The file holding an account's balance as text. */
  Path accountFile(String account) {
    return workDir.resolve(account + ".balance");
  }

  /** The file a process appends its transfer and failure records to. */
  Path recordFile(int process) {
    return workDir.resolve("transfers-" + process + ".log");
  }

  /**
   * Readies the work directory for {@code processes} processes: every account's file holds {@code
   * startBalance}, and their records from an earlier run are removed.
   */
  void resetFiles(int processes, long startBalance) throws IOException {
    for (String account : accounts) {
      Files.writeString(accountFile(account), Long.toString(startBalance), StandardCharsets.UTF_8);
    }
    for (int i = 0; i < processes; i++) {
      Files.deleteIfExists(recordFile(i));
    }
  }

  /** The plan as child-JVM arguments. */
  List<String> toArgs() {
    return List.of(
        lockName,
        workDir.toString(),
        String.join(",", accounts),
        Integer.toString(threads),
        Integer.toString(transfers),
        ttl.toString(),
        waitTimeout.toString(),
        Long.toString(seed),
        deadline.toString());
  }

  /**
   * Parses {@link #toArgs()} from {@code args}, starting at {@code from}.
   *
   * @throws IllegalArgumentException when the arguments are too few or malformed
   */
  static TransferPlan fromArgs(String[] args, int from) {
    if (args.length - from != ARGS) {
      throw new IllegalArgumentException(
          "expected "
              + ARGS
              + " plan arguments after the first "
              + from
              + ", got "
              + new ArrayList<>(List.of(args)));
    }
    return new TransferPlan(
        args[from],
        Path.of(args[from + 1]),
        List.of(args[from + 2].split(",")),
        Integer.parseInt(args[from + 3]),
        Integer.parseInt(args[from + 4]),
        Duration.parse(args[from + 5]),
        Duration.parse(args[from + 6]),
        Long.parseLong(args[from + 7]),
        Duration.parse(args[from + 8]));
  }
}
