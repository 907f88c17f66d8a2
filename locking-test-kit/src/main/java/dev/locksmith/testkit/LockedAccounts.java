package dev.locksmith.testkit;

import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A bean whose methods lock accounts; implementations annotate each method as its Javadoc says and
 * let {@link #book()} do the work (a {@link BookedAccounts} subclass hands each body to a {@link
 * AccountBook} method). The two-account methods take their accounts as {@code from} and {@code to}.
 */
public interface LockedAccounts {
  /**
   * Moves {@code amount} and calls {@code inside} with {@link Locks#current()}; annotated {@code
   * name = "acct", key = "{#from, #to}", waitTimeout = "30s"}.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @param inside runs under the locks with the current lease
   */
  void transfer(String from, String to, long amount, Consumer<Lease> inside);

  /**
   * Moves {@code amount} unless an account is busy; annotated {@code name = "acct", key = "{#from,
   * #to}", onBusy = OnBusy.SKIP}.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @return {@code "moved"}, or null when skipped
   */
  @Nullable String transferOrSkip(String from, String to, long amount);

  /**
   * Moves {@code amount}, or throws at once when an account is busy; annotated {@code name =
   * "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL}.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @return {@code "moved"}
   */
  String transferOrFail(String from, String to, long amount);

  /**
   * Moves {@code amount}, waiting at most 200 ms for both accounts; annotated {@code name = "acct",
   * key = "{#from, #to}", waitTimeout = "200ms"}.
   *
   * @param from the account debited
   * @param to the account credited
   * @param amount what is moved
   * @return {@code "moved"}
   */
  String transferBriefly(String from, String to, long amount);

  /**
   * The fencing token of one account's lock; annotated {@code name = "acct", key = "#account",
   * onBusy = OnBusy.FAIL}.
   *
   * @param account the account locked
   * @return the current lease's fencing token
   */
  long audit(String account);

  /**
   * Locks every account of the list; annotated {@code name = "acct", key = "#list"}.
   *
   * @param list the accounts
   * @return {@code "settled"}
   */
  String settle(List<String> list);

  /**
   * The balances, transfer count and run count behind the bean; the same object whether called on
   * the bean or on its proxy.
   *
   * @return the bean's book
   */
  AccountBook book();
}
