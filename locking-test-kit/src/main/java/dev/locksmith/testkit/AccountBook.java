package dev.locksmith.testkit;

import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The state behind a {@link LockedAccounts} bean. Only the locks guard it: its updates are
 * read-then-write, so two calls running at once on one account would lose one.
 */
public final class AccountBook {
  /** Every account's balance before any transfer. */
  public static final long OPENING_BALANCE = 1_000;

  private final Map<String, Long> balances = new ConcurrentHashMap<>();
  private final AtomicLong transfers = new AtomicLong();
  private final AtomicInteger runs = new AtomicInteger();

  /** An empty book: every account at {@link #OPENING_BALANCE}. */
  public AccountBook() {}

  /**
   * Counts a run of a method body and moves {@code amount} from one account to the other.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @return {@code "moved"}
   */
  public String move(String from, String to, long amount) {
    ran();
    long before = balance(from);
    long count = transfers.get();
    Thread.yield(); // widen the window a lost update would need
    balances.put(from, before - amount);
    balances.put(to, balance(to) + amount);
    transfers.set(count + 1);
    return "moved";
  }

  /**
   * The body of {@link LockedAccounts#transfer}: {@linkplain #move moves} {@code amount}, then
   * calls {@code inside} with {@link Locks#current()}.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @param inside runs under the locks with the current lease
   */
  public void transfer(String from, String to, long amount, Consumer<Lease> inside) {
    move(from, to, amount);
    inside.accept(Locks.current());
  }

  /**
   * The body of {@link LockedAccounts#audit}: counts a run.
   *
   * @return the current lease's fencing token
   */
  public long audit() {
    ran();
    return Locks.current().fencingToken();
  }

  /**
   * The body of {@link LockedAccounts#settle}: counts a run.
   *
   * @return {@code "settled"}
   */
  public String settle() {
    ran();
    return "settled";
  }

  /**
   * The body of a {@link SeveralKeysScenarios.LazyTransfer} method: counts a run now and gives what
   * turns the work's value into the method's result, for the method to map its lazy work with, e.g.
   * {@code work.map(book.settleLater())}.
   *
   * @return appends {@code "!"} to the work's value
   */
  public UnaryOperator<String> settleLater() {
    ran();
    return value -> value + "!";
  }

  /** Counts a run of a method body. */
  public void ran() {
    runs.incrementAndGet();
  }

  /**
   * One account's balance.
   *
   * @param account the account
   * @return its balance
   */
  public long balance(String account) {
    return balances.getOrDefault(account, OPENING_BALANCE);
  }

  /**
   * How many transfers ran.
   *
   * @return the transfer count
   */
  public long transfers() {
    return transfers.get();
  }

  /**
   * How many method bodies ran.
   *
   * @return the run count
   */
  public int runs() {
    return runs.get();
  }

  /** Back to opening balances, no transfer and no run. */
  public void reset() {
    balances.clear();
    transfers.set(0);
    runs.set(0);
  }
}
