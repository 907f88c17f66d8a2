package dev.locksmith.spring.woven;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Transfers between accounts, each call locking both accounts ({@code key = "{#from, #to}"}), woven
 * by the aspect; Spring adds no proxy in aspectj mode. Only the locks guard the balances and the
 * transfer count: their updates are read-then-write, so two calls running at once on one account
 * would lose one.
 */
public class WovenAccounts {
  static final long OPENING_BALANCE = 1_000;

  private final Map<String, Long> balances = new ConcurrentHashMap<>();
  private final AtomicLong transfers = new AtomicLong();

  /** How many times a method body ran. */
  final AtomicInteger runs = new AtomicInteger();

  /** Moves {@code amount}, waiting for both accounts; {@code inside} runs under the locks. */
  @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "30s")
  public void transfer(String from, String to, long amount, Consumer<Lease> inside) {
    runs.incrementAndGet();
    move(from, to, amount);
    inside.accept(Locks.current());
  }

  /** Moves {@code amount} unless an account is busy: {@code "moved"}, or null when skipped. */
  @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.SKIP)
  public @Nullable String transferOrSkip(String from, String to, long amount) {
    runs.incrementAndGet();
    move(from, to, amount);
    return "moved";
  }

  /** Moves {@code amount}, or throws at once when an account is busy. */
  @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL)
  public String transferOrFail(String from, String to, long amount) {
    runs.incrementAndGet();
    move(from, to, amount);
    return "moved";
  }

  /** Holds both accounts from subscription until {@code work} completes; refuses when busy. */
  @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL)
  public Mono<String> settleLater(String from, String to, Mono<String> work) {
    runs.incrementAndGet();
    return work.map(value -> value + "!");
  }

  /** The fencing token of one account's lock, refusing to wait for it. */
  @DistributedLock(name = "acct", key = "#account", onBusy = OnBusy.FAIL)
  public long audit(String account) {
    runs.incrementAndGet();
    return Locks.current().fencingToken();
  }

  long balance(String account) {
    return balances.getOrDefault(account, OPENING_BALANCE);
  }

  long transfers() {
    return transfers.get();
  }

  void reset() {
    balances.clear();
    transfers.set(0);
    runs.set(0);
  }

  private void move(String from, String to, long amount) {
    long before = balance(from);
    long count = transfers.get();
    Thread.yield(); // widen the window a lost update would need
    balances.put(from, before - amount);
    balances.put(to, balance(to) + amount);
    transfers.set(count + 1);
  }
}
