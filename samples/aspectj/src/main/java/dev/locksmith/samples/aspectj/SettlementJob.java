package dev.locksmith.samples.aspectj;

import dev.locksmith.aspectj.AspectLocksmith;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch: for each round, settle every account. Run several copies at once (on one host, or on
 * hosts sharing the work directory over NFS): each account's round is settled exactly once, by
 * whichever worker gets the account's lock first, and the others find it done.
 *
 * <p>The lock provider comes from {@code locksmith.url} (system property or {@code LOCKSMITH_URL});
 * when neither is set, this job sets it to the lock directory {@code file:DIR/locks}.
 */
public final class SettlementJob {
  private static final Logger LOG = LoggerFactory.getLogger(SettlementJob.class);

  private final JobOptions options;
  private final Settlement settlement;

  private SettlementJob(JobOptions options, Settlement settlement) {
    this.options = options;
    this.settlement = settlement;
  }

  /**
   * Runs the batch; see {@link JobOptions} for the arguments. Exits with 2 on a usage error, 1 when
   * the batch fails.
   */
  public static void main(String[] args) throws Exception {
    JobOptions options;
    try {
      options = JobOptions.parse(args);
    } catch (IllegalArgumentException e) {
      LOG.error("{}\n{}", e.getMessage(), JobOptions.USAGE);
      System.exit(2);
      return;
    }
    Path ledgerDir = Files.createDirectories(options.dir().resolve("ledger"));
    configureLockUrl(options.dir());
    try {
      // Fail now, not on the first call, if the URL or an annotation is wrong, or if ajc did not
      // weave Settlement (the annotation would then silently do nothing).
      int methods = AspectLocksmith.validate(Settlement.class);
      LOG.info(
          "worker {}: {} locked method(s) checked; locks at {}",
          options.worker(),
          methods,
          System.getProperty("locksmith.url", System.getenv("LOCKSMITH_URL")));
      Settlement settlement =
          new Settlement(new Ledger(ledgerDir), options.worker(), options.work());
      if (options.awaitGo()) {
        awaitGo(options.worker());
      }
      Totals totals = new SettlementJob(options, settlement).run();
      LOG.info(
          "worker {} done: settled={} found-settled={}",
          options.worker(),
          totals.settled(),
          totals.foundSettled());
    } finally {
      // Closes the engine that the first locked call created from locksmith.url.
      AspectLocksmith.reset();
    }
  }

  /** How many account rounds this worker settled, and how many it found settled by another. */
  record Totals(int settled, int foundSettled) {}

  private Totals run() throws InterruptedException {
    int settled = 0;
    int foundSettled = 0;
    for (int round = 1; round <= options.rounds(); round++) {
      for (String account : options.accounts()) {
        switch (settlement.settle(account, round)) {
          case SETTLED -> settled++;
          case FOUND_SETTLED -> foundSettled++;
        }
      }
    }
    return new Totals(settled, foundSettled);
  }

  private static void configureLockUrl(Path dir) {
    if (System.getProperty("locksmith.url") == null && System.getenv("LOCKSMITH_URL") == null) {
      System.setProperty("locksmith.url", dir.resolve("locks").toUri() + "?create-dirs=true");
    }
  }

  private static void awaitGo(String worker) throws IOException {
    LOG.info("worker {} ready; waiting for 'go' on standard input", worker);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line = in.readLine();
    if (!"go".equals(line)) {
      throw new IllegalStateException("expected 'go' on standard input, got '" + line + "'");
    }
  }
}
