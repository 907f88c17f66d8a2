package dev.locksmith.samples.springboot;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * The accounts table. {@link #move} is a plain read-modify-write: it is correct only because the
 * caller holds both account locks, and it refuses to write when a later lock holder has written
 * (fencing).
 */
@Repository
class Ledger {
  private final JdbcTemplate jdbc;

  Ledger(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Moves money in one transaction.
   *
   * @param fromFence the fencing token of the lease on {@code from}
   * @param toFence the fencing token of the lease on {@code to}
   * @throws InsufficientFundsException when {@code from} would go below zero
   * @throws UnknownAccountException when either account does not exist
   * @throws FencedOffException when a later holder of either lock has already written
   */
  @Transactional
  public TransferResult move(String from, String to, long cents, long fromFence, long toFence) {
    long fromBalance = balance(from);
    long toBalance = balance(to);
    if (fromBalance < cents) {
      throw new InsufficientFundsException(from, fromBalance, cents);
    }
    write(from, fromBalance - cents, fromFence);
    write(to, toBalance + cents, toFence);
    return new TransferResult(from, to, cents, fromBalance - cents, toBalance + cents);
  }

  /** Every account, by id. */
  @Transactional(readOnly = true)
  public List<Account> accounts() {
    return jdbc.query(
        "select id, balance_cents from account order by id",
        (row, n) -> new Account(row.getString(1), row.getLong(2)));
  }

  /** Totals of all accounts, read in one statement (one consistent snapshot). */
  @Transactional(readOnly = true)
  public Totals totals() {
    Totals totals =
        jdbc.queryForObject(
            "select count(*), coalesce(sum(balance_cents), 0), coalesce(min(balance_cents), 0)"
                + " from account",
            (row, n) -> new Totals(row.getInt(1), row.getLong(2), row.getLong(3)));
    if (totals == null) {
      throw new IllegalStateException("no totals row");
    }
    return totals;
  }

  private long balance(String id) {
    List<@Nullable Long> rows =
        jdbc.queryForList("select balance_cents from account where id = ?", Long.class, id);
    if (rows.isEmpty()) {
      throw new UnknownAccountException(id);
    }
    Long balance = rows.get(0);
    if (balance == null) {
      throw new IllegalStateException("account " + id + " has no balance");
    }
    return balance;
  }

  private void write(String id, long balance, long fence) {
    int updated =
        jdbc.update(
            "update account set balance_cents = ?, fence = ? where id = ? and fence <= ?",
            balance,
            fence,
            id,
            fence);
    if (updated != 1) {
      throw new FencedOffException(id, fence);
    }
  }

  /** Totals over all accounts. */
  record Totals(int accounts, long totalCents, long lowestCents) {}
}
