package dev.locksmith.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The checked history of random transfers among accounts, each transfer holding both accounts'
 * locks: the total balance is conserved, each account's final balance is what the recorded
 * transfers make it (no lost update), and per account no two sections overlap and the fencing
 * tokens of that account's leases increase in section order ({@link History}).
 *
 * @param transfers the recorded transfers, sorted by start time
 * @param accounts each account's sections (its own {@link History}), in account order
 * @param violations what the check found wrong, empty when the history is a valid one
 */
public record TransferHistory(
    List<TransferRecord> transfers, Map<String, History> accounts, List<String> violations) {

  /**
   * Copies the collections.
   *
   * @param transfers see {@link #transfers()}
   * @param accounts see {@link #accounts()}
   * @param violations see {@link #violations()}
   */
  public TransferHistory {
    transfers = List.copyOf(transfers);
    accounts = Collections.unmodifiableMap(new LinkedHashMap<>(accounts));
    violations = List.copyOf(violations);
  }

  /**
   * Checks recorded transfers against the accounts' final balances.
   *
   * @param recorded the transfers, in any order
   * @param balances every account's final balance, in account order
   * @param startBalance every account's balance before the first transfer
   * @return the checked history
   */
  public static TransferHistory check(
      List<TransferRecord> recorded, Map<String, Long> balances, long startBalance) {
    List<TransferRecord> sorted = new ArrayList<>(recorded);
    sorted.sort(Comparator.comparingLong(TransferRecord::startNanos));
    List<String> violations = new ArrayList<>();
    Map<String, Long> replayed = new LinkedHashMap<>();
    Map<String, List<CriticalSection>> sections = new LinkedHashMap<>();
    for (String account : balances.keySet()) {
      replayed.put(account, startBalance);
      sections.put(account, new ArrayList<>());
    }
    for (TransferRecord transfer : sorted) {
      for (String account : List.of(transfer.from(), transfer.to())) {
        if (!balances.containsKey(account)) {
          violations.add(
              "transfer " + transfer.origin() + " names an unknown account '" + account + "'");
          continue;
        }
        Objects.requireNonNull(sections.get(account)).add(transfer.section(account));
        long delta = account.equals(transfer.from()) ? -transfer.amount() : transfer.amount();
        replayed.merge(account, delta, Long::sum);
      }
    }
    long total = balances.values().stream().mapToLong(Long::longValue).sum();
    long expectedTotal = startBalance * balances.size();
    if (total != expectedTotal) {
      violations.add(
          "total balance is " + total + ", expected " + expectedTotal + " (" + balances + ")");
    }
    Map<String, History> histories = new LinkedHashMap<>();
    for (Map.Entry<String, Long> balance : balances.entrySet()) {
      String account = balance.getKey();
      long expected = Objects.requireNonNull(replayed.get(account));
      if (balance.getValue() != expected) {
        violations.add(
            "lost update on account '"
                + account
                + "': balance is "
                + balance.getValue()
                + ", the recorded transfers make it "
                + expected);
      }
      History history = History.check(Objects.requireNonNull(sections.get(account)));
      history.violations().forEach(v -> violations.add("account '" + account + "': " + v));
      histories.put(account, history);
    }
    return new TransferHistory(sorted, histories, violations);
  }

  /**
   * How many distinct processes ran transfers.
   *
   * @return how many distinct processes ran transfers
   */
  public long processes() {
    return transfers.stream().mapToInt(TransferRecord::process).distinct().count();
  }

  /**
   * How many transfers began while another was still in its section (on other accounts, or the
   * check found an overlap): evidence that the run had transfers at once, not one after another.
   *
   * @return how many transfers began while another was still in its section (on other accounts, or
   *     the check found an overlap): evidence that the run had transfers at once, not one after
   *     another
   */
  public int startedDuringAnother() {
    int count = 0;
    long latestEnd = Long.MIN_VALUE;
    for (TransferRecord transfer : transfers) {
      if (transfer.startNanos() < latestEnd) {
        count++;
      }
      latestEnd = Math.max(latestEnd, transfer.endNanos());
    }
    return count;
  }

  /**
   * How many times the next transfer to start came from another process than the one before:
   * evidence that the processes ran interleaved.
   *
   * @return how many times the next transfer to start came from another process than the one
   *     before: evidence that the processes ran interleaved
   */
  public int processChanges() {
    int count = 0;
    for (int i = 1; i < transfers.size(); i++) {
      if (transfers.get(i).process() != transfers.get(i - 1).process()) {
        count++;
      }
    }
    return count;
  }
}
