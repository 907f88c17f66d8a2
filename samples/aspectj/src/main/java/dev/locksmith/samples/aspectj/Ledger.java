package dev.locksmith.samples.aspectj;

import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.core.fencing.StaleFencingTokenException;
import java.nio.file.Path;
import java.util.List;

/**
 * The settlement ledger: one {@link FencedFile} per account, one line per {@link Entry}. Every read
 * and write carries the fencing token of the lease under which it happens, so a worker whose lease
 * ran out while it was paused cannot write over a later holder's entries: its write fails with
 * {@link StaleFencingTokenException} instead.
 */
final class Ledger {
  private final Path dir;

  /** A ledger with its files in {@code dir}, which must exist. */
  Ledger(Path dir) {
    this.dir = dir;
  }

  /**
   * One line of an account's ledger: {@code begin} when a worker starts settling a round, {@code
   * end} when it has finished.
   *
   * @param kind {@code begin} or {@code end}
   * @param round the settlement round
   * @param worker the worker's name
   * @param token the fencing token of the worker's lease
   */
  record Entry(String kind, int round, String worker, long token) {
    static final String BEGIN = "begin";
    static final String END = "end";

    static Entry parse(String line) {
      String[] fields = line.split(" ");
      if (fields.length != 4) {
        throw new IllegalStateException("Not a ledger entry: '" + line + "'");
      }
      return new Entry(
          fields[0], Integer.parseInt(fields[1]), fields[2], Long.parseLong(fields[3]));
    }

    String format() {
      return kind + " " + round + " " + worker + " " + token;
    }
  }

  /**
   * Whether an {@code end} entry for the round is in the account's ledger, read by the holder of
   * {@code token}: the read records the token, so that no older holder can write after it.
   */
  boolean isSettled(String account, int round, long token) {
    String value = file(account).read(token).value();
    return value
        .lines()
        .map(Entry::parse)
        .anyMatch(entry -> entry.kind().equals(Entry.END) && entry.round() == round);
  }

  /**
   * Appends an entry to the account's ledger.
   *
   * @throws StaleFencingTokenException when a later lease holder has already used the ledger
   */
  void append(String account, long token, Entry entry) {
    FencedFile file = file(account);
    String value = file.read(token).value();
    file.write(token, value + entry.format() + "\n");
  }

  /** Every entry of the account's ledger, oldest first. */
  List<Entry> entries(String account) {
    return file(account).read().value().lines().map(Entry::parse).toList();
  }

  private FencedFile file(String account) {
    return new FencedFile(dir.resolve(account + ".ledger"));
  }
}
