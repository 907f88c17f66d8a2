package dev.locksmith.samples.micronaut;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The balances, in cents. An in-memory stand-in for the shared database a real deployment would
 * use: reads and writes are separate steps, exactly like {@code SELECT} then {@code UPDATE}, so a
 * read-modify-write is only safe while the account's lock is held (see {@link Transfers}).
 */
@Singleton
final class Accounts {
  private final ConcurrentMap<String, Long> balances = new ConcurrentHashMap<>();

  Accounts(
      @Value("${bank.accounts}") List<String> names,
      @Value("${bank.opening-balance}") long openingBalance) {
    for (String name : names) {
      balances.put(name, openingBalance);
    }
  }

  /**
   * The balance of an account.
   *
   * @throws IllegalArgumentException when there is no such account
   */
  long balance(String account) {
    Long balance = balances.get(account);
    if (balance == null) {
      throw new IllegalArgumentException("no account '" + account + "'");
    }
    return balance;
  }

  /** Whether the account exists. */
  boolean exists(String account) {
    return balances.containsKey(account);
  }

  /** Sets the balance of an existing account. */
  void set(String account, long cents) {
    balances.replace(account, cents);
  }

  /** Every balance, by account name. */
  Map<String, Long> all() {
    return new TreeMap<>(balances);
  }
}
