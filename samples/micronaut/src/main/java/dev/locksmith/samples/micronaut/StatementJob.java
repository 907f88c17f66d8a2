package dev.locksmith.samples.micronaut;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a statement of all balances on every tick, on one instance only: every instance fires
 * the job, the first takes the lock {@code statement}, and the others, finding it held, skip that
 * tick ({@code SKIP}). {@code minHold} keeps the lock for half a second after a quick run, so an
 * instance whose clock or scheduler is a little late does not run the same tick again.
 */
@Singleton
class StatementJob {
  private static final Logger LOG = LoggerFactory.getLogger(StatementJob.class);

  private final Accounts accounts;
  private final AtomicInteger runs = new AtomicInteger();

  StatementJob(Accounts accounts) {
    this.accounts = accounts;
  }

  @Scheduled(
      fixedDelay = "${bank.statement.interval}",
      initialDelay = "${bank.statement.initial-delay}")
  @DistributedLock(name = "statement", onBusy = OnBusy.SKIP, minHold = "500ms")
  void publish() {
    int run = runs.incrementAndGet();
    LOG.info(
        "statement {} (fencing token {}): {}", run, Locks.current().fencingToken(), accounts.all());
  }

  /** How many statements this instance has published. */
  int runs() {
    return runs.get();
  }
}
