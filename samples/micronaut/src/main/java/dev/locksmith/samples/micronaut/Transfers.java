package dev.locksmith.samples.micronaut;

import dev.locksmith.core.Locks;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Moves money between two accounts while holding both accounts' locks. */
@Singleton
final class Transfers {
  private static final Logger LOG = LoggerFactory.getLogger(Transfers.class);

  private final Accounts accounts;
  private final AccountLocks locks;

  Transfers(Accounts accounts, AccountLocks locks) {
    this.accounts = accounts;
    this.locks = locks;
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
    // Both locks, always in the same (alphabetical) order: two opposite transfers between the same
    // accounts then queue up instead of each holding one lock and waiting for the other.
    String first = from.compareTo(to) < 0 ? from : to;
    String second = first.equals(from) ? to : from;
    return locks.holding(first, () -> locks.holding(second, () -> move(from, to, cents)));
  }

  private Receipt move(String from, String to, long cents) {
    long fromBalance = accounts.balance(from);
    if (fromBalance < cents) {
      throw new InsufficientFundsException(from, fromBalance, cents);
    }
    long toBalance = accounts.balance(to);
    accounts.set(from, fromBalance - cents);
    accounts.set(to, toBalance + cents);
    LOG.debug("moved {} from {} to {} under {}", cents, from, to, Locks.current().lockId());
    return new Receipt(from, to, cents, fromBalance - cents, toBalance + cents);
  }
}
