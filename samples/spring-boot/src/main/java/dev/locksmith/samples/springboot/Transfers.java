package dev.locksmith.samples.springboot;

import org.springframework.stereotype.Service;

/**
 * Moves money between two accounts: takes both account locks, in alphabetical order, then lets the
 * {@link Ledger} run the transaction. The locks are taken outside the transaction, so they are
 * released only after it has committed or rolled back.
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
    // Every request locks the two accounts in the same (alphabetical) order, so two opposite
    // transfers A->B and B->A can never each hold one lock and wait for the other.
    boolean fromFirst = from.compareTo(to) < 0;
    String first = fromFirst ? from : to;
    String second = fromFirst ? to : from;
    return locks.withAccount(
        first,
        firstLease ->
            locks.withAccount(
                second,
                secondLease -> {
                  long fromFence =
                      fromFirst ? firstLease.fencingToken() : secondLease.fencingToken();
                  long toFence = fromFirst ? secondLease.fencingToken() : firstLease.fencingToken();
                  return ledger.move(from, to, cents, fromFence, toFence);
                }));
  }
}
