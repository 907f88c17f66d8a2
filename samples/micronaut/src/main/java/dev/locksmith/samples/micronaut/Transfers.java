package dev.locksmith.samples.micronaut;

import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Moves money between two accounts while holding both accounts' locks. */
@Singleton
final class Transfers {
  private static final Logger LOG = LoggerFactory.getLogger(Transfers.class);

  private final Accounts accounts;
  private final AccountLocks locks;
  private final Duration work;

  /**
   * @param work how long a transfer takes between reading the balances and writing them, as a call
   *     to a ledger service would ({@code bank.transfer.work}, none by default): the window in
   *     which an unlocked transfer would lose another's update
   */
  Transfers(
      Accounts accounts, AccountLocks locks, @Value("${bank.transfer.work:0ms}") Duration work) {
    this.accounts = accounts;
    this.locks = locks;
    this.work = work;
  }

  /**
   * Moves {@code cents} from one account to another.
   *
   * @throws IllegalArgumentException for an unknown account, the same account twice or an amount
   *     that is not positive; checked before any lock is taken
   * @throws InsufficientFundsException when {@code from} holds less than {@code cents}
   */
  Receipt transfer(String from, String to, long cents) {
    if (!accounts.exists(from) || !accounts.exists(to)) {
      throw new IllegalArgumentException(
          "no account '" + (accounts.exists(from) ? to : from) + "'");
    }
    if (from.equals(to)) {
      throw new IllegalArgumentException("cannot transfer from '" + from + "' to itself");
    }
    if (cents <= 0) {
      throw new IllegalArgumentException("the amount must be positive, was " + cents);
    }
    // Both locks with one call: the engine takes them in one global (sorted) order, so two opposite
    // transfers between the same accounts queue up instead of each holding one lock and waiting
    // for the other.
    return locks.holding(from, to, () -> move(from, to, cents));
  }

  private Receipt move(String from, String to, long cents) {
    long fromBalance = accounts.balance(from);
    if (fromBalance < cents) {
      throw new InsufficientFundsException(from, fromBalance, cents);
    }
    long toBalance = accounts.balance(to);
    if (!work.isZero()) {
      LockSupport.parkNanos(work.toNanos());
    }
    accounts.set(from, fromBalance - cents);
    accounts.set(to, toBalance + cents);
    LOG.debug(
        "moved {} from {} to {} under {}",
        cents,
        from,
        to,
        Locks.current().leases().stream().map(Lease::lockId).toList());
    return new Receipt(from, to, cents, fromBalance - cents, toBalance + cents);
  }
}
