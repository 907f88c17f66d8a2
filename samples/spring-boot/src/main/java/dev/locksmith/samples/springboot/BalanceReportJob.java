package dev.locksmith.samples.springboot;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Every instance schedules the report; on each tick only the instance that gets the lock makes it,
 * the others skip. {@code minHold} keeps the lock past the end of the run, so an instance whose
 * clock is a little behind, and whose tick fires a little later, still finds it held and skips.
 */
@Component
class BalanceReportJob {
  private static final Logger log = LoggerFactory.getLogger(BalanceReportJob.class);

  private final Ledger ledger;
  private final AtomicReference<BalanceReport> latest = new AtomicReference<>();
  private final AtomicInteger runs = new AtomicInteger();

  BalanceReportJob(Ledger ledger) {
    this.ledger = ledger;
  }

  /** Reads the totals and keeps them as the latest report; skipped when another run holds it. */
  @Scheduled(cron = "${bank.report.cron}")
  @DistributedLock(
      name = "bank-report",
      onBusy = OnBusy.SKIP,
      ttl = "1m",
      minHold = "${bank.report.min-hold}")
  public void report() {
    Lease lease = Locks.current();
    Ledger.Totals totals = ledger.totals();
    BalanceReport report =
        new BalanceReport(
            Instant.now(),
            totals.accounts(),
            totals.totalCents(),
            totals.lowestCents(),
            lease.lockId(),
            lease.fencingToken());
    latest.set(report);
    runs.incrementAndGet();
    log.info(
        "balance report (fencing token {}): {} accounts, {} cents in total, lowest {}",
        report.fencingToken(),
        report.accounts(),
        report.totalCents(),
        report.lowestCents());
  }

  /** The report of the last run in this instance, if it made one. */
  Optional<BalanceReport> latest() {
    return Optional.ofNullable(latest.get());
  }

  /** How many times this instance made the report (skipped ticks do not count). */
  int runs() {
    return runs.get();
  }
}
