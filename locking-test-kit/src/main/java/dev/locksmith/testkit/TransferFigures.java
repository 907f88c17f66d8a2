package dev.locksmith.testkit;

/**
 * Writes the one line of figures of a {@link TransferHarness.Result}: how many transfers ran, how
 * long they and the start-up took, how interleaved they were, the seed and the number of
 * violations.
 */
final class TransferFigures {
  private TransferFigures() {}

  /** The line {@link TransferHarness.Result#figures()} gives for {@code result}. */
  static String of(TransferHarness.Result result) {
    TransferHistory history = result.history();
    return result.transfers()
        + "/"
        + result.expectedTransfers()
        + " transfers by "
        + result.processes()
        + " processes x "
        + result.threads()
        + " threads over "
        + history.accounts().size()
        + " accounts in "
        + result.elapsed().toMillis()
        + " ms (start-up "
        + result.startUp().toMillis()
        + " ms, slowest warm-up "
        + result.slowestWarmUp().toMillis()
        + " ms, "
        + result.warmUpRetries()
        + " warm-up retries); "
        + history.processes()
        + " processes ran transfers, "
        + history.processChanges()
        + " hand-overs between them, "
        + history.startedDuringAnother()
        + " started during another (seed "
        + result.seed()
        + ", "
        + result.violations().size()
        + " violations)";
  }
}
