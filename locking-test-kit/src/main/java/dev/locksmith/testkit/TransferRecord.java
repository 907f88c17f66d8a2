package dev.locksmith.testkit;

/**
 * One transfer as a {@link TransferContender} recorded it: both accounts' locks were held, by one
 * engine call over both keys, from {@code startNanos} to {@code endNanos}.
 *
 * @param process the index of the contender process (or, in one JVM, of its engine)
 * @param worker the index of the thread within the process
 * @param sequence the transfer's number within the thread, from 0
 * @param pid the process id of the JVM that ran it
 * @param from the account debited
 * @param to the account credited
 * @param amount the amount moved
 * @param fromToken the fencing token of the lease on {@code from}
 * @param toToken the fencing token of the lease on {@code to}
 * @param startNanos when the section began (both locks held), on the host's monotonic clock ({@code
 *     System.nanoTime} is CLOCK_MONOTONIC on Linux, shared by every process of the host)
 * @param endNanos when the section ended, before the locks were released
 */
public record TransferRecord(
    int process,
    int worker,
    int sequence,
    long pid,
    String from,
    String to,
    long amount,
    long fromToken,
    long toToken,
    long startNanos,
    long endNanos) {

  /** The first word of a transfer line. */
  static final String PREFIX = "transfer";

  /**
   * Validates the record.
   *
   * @param process see {@link #process()}
   * @param worker see {@link #worker()}
   * @param sequence see {@link #sequence()}
   * @param pid see {@link #pid()}
   * @param from see {@link #from()}
   * @param to see {@link #to()}
   * @param amount see {@link #amount()}
   * @param fromToken see {@link #fromToken()}
   * @param toToken see {@link #toToken()}
   * @param startNanos see {@link #startNanos()}
   * @param endNanos see {@link #endNanos()}
   */
  public TransferRecord {
    if (from.equals(to)) {
      throw new IllegalArgumentException("transfer from account '" + from + "' to itself");
    }
    if (endNanos < startNanos) {
      throw new IllegalArgumentException(
          "transfer section ends (" + endNanos + ") before it starts (" + startNanos + ")");
    }
  }

  /** Whether a line is a transfer line written by {@link #toLine()}. */
  static boolean isTransferLine(String line) {
    return line.startsWith(PREFIX + " ");
  }

  /**
   * Parses a line written by {@link #toLine()}.
   *
   * @param line a line written by {@link #toLine()}
   * @return the record
   * @throws IllegalArgumentException when the line is not a transfer record
   */
  public static TransferRecord parse(String line) {
    String[] parts = line.strip().split(" ");
    if (parts.length != 12 || !parts[0].equals(PREFIX)) {
      throw new IllegalArgumentException("not a transfer record: '" + line + "'");
    }
    try {
      return new TransferRecord(
          Integer.parseInt(parts[1]),
          Integer.parseInt(parts[2]),
          Integer.parseInt(parts[3]),
          Long.parseLong(parts[4]),
          parts[5],
          parts[6],
          Long.parseLong(parts[7]),
          Long.parseLong(parts[8]),
          Long.parseLong(parts[9]),
          Long.parseLong(parts[10]),
          Long.parseLong(parts[11]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a transfer record: '" + line + "'", e);
    }
  }

  /**
   * The record as one line: {@code transfer process worker sequence pid from to amount fromToken
   * toToken start end}.
   *
   * @return the record as one line: {@code transfer process worker sequence pid from to amount
   *     fromToken toToken start end}
   */
  public String toLine() {
    return String.join(
        " ",
        PREFIX,
        Integer.toString(process),
        Integer.toString(worker),
        Integer.toString(sequence),
        Long.toString(pid),
        from,
        to,
        Long.toString(amount),
        Long.toString(fromToken),
        Long.toString(toToken),
        Long.toString(startNanos),
        Long.toString(endNanos));
  }

  /**
   * The section this transfer held {@code account}'s lock in, with that lease's fencing token.
   *
   * @param account one of the two accounts
   * @return the section this transfer held {@code account}'s lock in, with that lease's fencing
   *     token
   */
  public CriticalSection section(String account) {
    if (account.equals(from)) {
      return new CriticalSection(pid, fromToken, startNanos, endNanos);
    }
    if (account.equals(to)) {
      return new CriticalSection(pid, toToken, startNanos, endNanos);
    }
    throw new IllegalArgumentException(
        "transfer " + toLine() + " did not lock account '" + account + "'");
  }

  /**
   * Who ran it, for messages: {@code process/worker#sequence}.
   *
   * @return who ran it, for messages: {@code process/worker#sequence}
   */
  public String origin() {
    return process + "/" + worker + "#" + sequence;
  }
}
