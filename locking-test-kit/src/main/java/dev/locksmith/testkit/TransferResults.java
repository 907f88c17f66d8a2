package dev.locksmith.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what a harness run left behind (the processes' record files and the account balances) and
 * checks it into a {@link TransferHarness.Result}.
 */
final class TransferResults {
  private TransferResults() {}

  /**
   * Reads the records and balances of {@code run}, which ran {@code plan} in {@code processes}
   * processes over accounts that each started at {@code startBalance}, and checks them.
   */
  static TransferHarness.Result collect(
      TransferPlan plan, int processes, long startBalance, TransferRun run) throws IOException {
    long finished = System.nanoTime();
    Duration slowestWarmUp = Duration.ZERO;
    int warmUpRetries = 0;
    for (TransferContender.WarmUp outcome : run.warmUps().completed()) {
      if (outcome.took().compareTo(slowestWarmUp) > 0) {
        slowestWarmUp = outcome.took();
      }
      warmUpRetries += outcome.attempts() - 1;
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
    return new TransferHarness.Result(
        TransferHistory.check(records, balances, startBalance),
        processes,
        plan.threads(),
        processes * plan.threads() * plan.transfers(),
        failures,
        run.exitCodes(),
        run.logs(),
        Duration.ofNanos(run.go() - run.started()),
        slowestWarmUp,
        warmUpRetries,
        Duration.ofNanos(finished - run.go()),
        plan.seed());
  }
}
