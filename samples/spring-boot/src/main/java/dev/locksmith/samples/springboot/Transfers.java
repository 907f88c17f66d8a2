package dev.locksmith.samples.springboot;

import org.springframework.stereotype.Service;

/**
 * Moves money between two accounts: takes both account locks with one call (the engine orders
 * them), then lets the {@link Ledger} run the transaction. The locks are taken outside the
 * transaction, so they are released only after it has committed or rolled back.
 */
@Service
final class Transfers {
  private final AccountLocks locks;
  private final Ledger ledger;

  Transfers(AccountLocks locks, Ledger ledger) {
    this.locks = locks;
    this.ledger = ledger;
  }

  /**
   * Moves {@code cents} from {@code from} to {@code to}.
   *
   * @throws IllegalArgumentException when the amount is not positive or both accounts are the same
   * @throws InsufficientFundsException when {@code from} would go below zero
   * @throws UnknownAccountException when either account does not exist
   */
  TransferResult transfer(String from, String to, long cents) {
    if (cents <= 0) {
      throw new IllegalArgumentException("cents must be positive, was " + cents);
    }
    if (from.equals(to)) {
      throw new IllegalArgumentException("cannot transfer from account '" + from + "' to itself");
    }
    // One call locks both accounts: the engine takes them in one global (sorted) order, so two
    // opposite transfers A->B and B->A can never each hold one lock and wait for the other.
    return locks.withAccounts(
        from,
        to,
        lease ->
            ledger.move(
                from, to, cents, lease.lease(from).fencingToken(), lease.lease(to).fencingToken()));
  }
}
