package dev.locksmith.samples.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles one account for one round. The method is woven at compile time: every call runs under the
 * lock {@code settlement:<account>}, whichever JVM makes it, so the check "is this round settled
 * already?" and the settling itself are never interleaved with another worker's.
 */
final class Settlement {
  private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);

  private final Ledger ledger;
  private final String worker;
  private final Duration work;

  /** What a call did. */
  enum Outcome {
    /** This worker settled the round. */
    SETTLED,
    /** Another worker had settled the round already; nothing was written. */
    FOUND_SETTLED
  }

  Settlement(Ledger ledger, String worker, Duration work) {
    this.ledger = ledger;
    this.worker = worker;
    this.work = work;
  }

  /**
   * Settles {@code account} for {@code round} unless that is done already. Waits (up to a minute)
   * while another worker holds the account's lock; the lease is renewed while the work runs.
   */
  @DistributedLock(
      name = "settlement",
      key = "#account",
      ttl = "10s",
      onBusy = OnBusy.WAIT,
      waitTimeout = "1m")
  Outcome settle(String account, int round) throws InterruptedException {
    Lease lease = Locks.current();
    long token = lease.fencingToken();
    if (ledger.isSettled(account, round, token)) {
      LOG.debug("{} round {}: already settled", account, round);
      return Outcome.FOUND_SETTLED;
    }
    ledger.append(account, token, new Ledger.Entry(Ledger.Entry.BEGIN, round, worker, token));
    Thread.sleep(work.toMillis()); // stands in for the real work: posting interest, fees, ...
    lease.checkValid();
    ledger.append(account, token, new Ledger.Entry(Ledger.Entry.END, round, worker, token));
    LOG.info("{} round {}: settled under fencing token {}", account, round, token);
    return Outcome.SETTLED;
  }
}
