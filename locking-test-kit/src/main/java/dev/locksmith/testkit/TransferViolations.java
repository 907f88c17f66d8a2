package dev.locksmith.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lists what went wrong in a {@link TransferHarness.Result}: its history's violations, missing
 * transfers, the processes' failures, and each process that did not exit 0 with the last lines of
 * its output.
 */
final class TransferViolations {
  private static final int LOG_LINES = 8;

  private TransferViolations() {}

  /**
   * Every violation of {@code result}, in the order {@link TransferHarness.Result#violations()}
   * gives.
   */
  static List<String> of(TransferHarness.Result result) {
    List<String> all = new ArrayList<>(result.history().violations());
    if (result.transfers() != result.expectedTransfers()) {
      all.add(
          "recorded " + result.transfers() + " transfers, expected " + result.expectedTransfers());
    }
    all.addAll(result.failures());
    List<Integer> exitCodes = result.exitCodes();
    List<Path> logs = result.logs();
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

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return "last lines of "
          + log
          + ": "
          + String.join(" | ", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException e) {
      return "output " + log + " unreadable: " + e;
    }
  }
}
