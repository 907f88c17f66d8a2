package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The scenarios of a method locking two accounts at once ({@code key = "{#from, #to}"}), shared by
 * every integration (Spring proxies, Spring in AspectJ mode, the Micronaut interceptor,
 * compile-time weaving): one lease per account, taken sorted and all or nothing, reentered per
 * account by a nested call.
 *
 * <p>Each integration keeps its own annotated bean, implementing {@link LockedAccounts} with the
 * annotations that interface documents, and checks the scenarios against the provider its engine
 * uses. Every lock is named {@code acct}, so the lock ids are {@code acct:<account>}; the scenarios
 * use the accounts {@code a}, {@code b} and {@code c}. Where the provider lists what it holds
 * ({@link LockProvider#listHeld()}), that listing is checked as well.
 */
public final class SeveralKeysScenarios {
  /** Calls each thread of the race makes. */
  public static final int ROUNDS = 200;

  /** How long a scenario waits for a lock to be taken or let go. */
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final LockedAccounts accounts;
  private final AccountLocks locks;

  /**
   * Scenarios on one bean.
   *
   * @param accounts the annotated bean, as the application sees it (the proxy, when there is one)
   * @param provider the provider of the engine that serves the bean's locks
   */
  public SeveralKeysScenarios(LockedAccounts accounts, LockProvider provider) {
    this.accounts = accounts;
    this.locks = new AccountLocks(provider);
  }

  /**
   * A bean whose methods lock accounts; implementations annotate each method as its Javadoc says
   * and let {@link #book()} do the work (a {@link BookedAccounts} subclass hands each body to a
   * {@link Book} method). The two-account methods take their accounts as {@code from} and {@code
   * to}.
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
     * Moves {@code amount} unless an account is busy; annotated {@code name = "acct", key =
     * "{#from, #to}", onBusy = OnBusy.SKIP}.
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
     * Moves {@code amount}, waiting at most 200 ms for both accounts; annotated {@code name =
     * "acct", key = "{#from, #to}", waitTimeout = "200ms"}.
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
    Book book();
  }

  /**
   * A {@link LockedAccounts} bean with its own {@link Book}: a subclass adds the annotated methods,
   * each handing its body to {@link #book}.
   */
  public abstract static class BookedAccounts implements LockedAccounts {
    /** The state behind the bean, which the annotated methods' bodies update. */
    protected final Book book = new Book();

    /** A bean with an empty book. */
    protected BookedAccounts() {}

    /**
     * The bean's own book: called on a proxy, the call reaches the target's (the proxy's own fields
     * are unused).
     *
     * @return the bean's book
     */
    @Override
    public Book book() {
      return book;
    }
  }

  /**
   * The state behind a {@link LockedAccounts} bean. Only the locks guard it: its updates are
   * read-then-write, so two calls running at once on one account would lose one.
   */
  public static final class Book {
    /** Every account's balance before any transfer. */
    public static final long OPENING_BALANCE = 1_000;

    private final Map<String, Long> balances = new ConcurrentHashMap<>();
    private final AtomicLong transfers = new AtomicLong();
    private final AtomicInteger runs = new AtomicInteger();

    /** An empty book: every account at {@link #OPENING_BALANCE}. */
    public Book() {}

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
     * The body of a {@link LazyTransfer} method: counts a run now and gives what turns the work's
     * value into the method's result, for the method to map its lazy work with, e.g. {@code
     * work.map(book.settleLater())}.
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

  /**
   * A method whose locks are taken when its result is subscribed to, such as one returning a {@code
   * Mono}, annotated {@code name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL}; its body
   * counts a run and its result is {@code work}'s value followed by {@code "!"}.
   */
  @FunctionalInterface
  public interface LazyTransfer {
    /**
     * Calls the method now.
     *
     * @param from one account
     * @param to the other account
     * @param work what the result waits for
     * @return subscribes to the method's result when called
     */
    Supplier<CompletableFuture<String>> call(String from, String to, CompletionStage<String> work);
  }

  /**
   * Inside a transfer called with the accounts in reverse order, the current lease holds one lease
   * per account, sorted, each with a positive fencing token that is the provider's holder of that
   * lock; on return the lease is no longer valid, nothing is held and the transfer was booked.
   */
  public void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    AtomicReference<Lease> seen = new AtomicReference<>();

    accounts.transfer(
        "b",
        "a",
        5,
        lease -> {
          assertThat(Locks.current()).isSameAs(lease);
          assertThat(lease.leases()).extracting(Lease::key).containsExactly("a", "b");
          assertThat(lease.leases()).extracting(Lease::lockId).containsExactly("acct:a", "acct:b");
          assertThat(lease.leases()).allSatisfy(one -> assertThat(one.fencingToken()).isPositive());
          assertThat(lease.lease("b").lockId()).isEqualTo("acct:b");
          assertThat(locks.holderToken("acct:a")).isEqualTo(lease.lease("a").fencingToken());
          assertThat(locks.holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          locks.assertHeldExactly("acct:a", "acct:b");
          seen.set(lease);
        });

    assertThat(seen.get()).as("the method ran").isNotNull();
    assertThat(seen.get().isValid()).as("released on return").isFalse();
    assertNothingHeld();
    assertThat(accounts.book().balance("b")).isEqualTo(Book.OPENING_BALANCE - 5);
  }

  /**
   * Two threads transfer between the same two accounts in opposite directions, starting each call
   * together, {@link #ROUNDS} times each: no deadlock (each thread finishes within two minutes), no
   * lost update (balances and transfer count add up), every call holds two leases, and each lock's
   * fencing tokens only rise. Nothing is held afterwards.
   *
   * @throws Exception if a thread fails or times out
   */
  public void transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate() throws Exception {
    RisingTokenCheck check = new RisingTokenCheck();

    TwoThreadRace.run(
        ROUNDS,
        () -> accounts.transfer("a", "b", 3, check),
        () -> accounts.transfer("b", "a", 2, check));

    Book book = accounts.book();
    assertThat(book.transfers()).isEqualTo(2L * ROUNDS);
    assertThat(book.balance("a")).isEqualTo(Book.OPENING_BALANCE - ROUNDS);
    assertThat(book.balance("b")).isEqualTo(Book.OPENING_BALANCE + ROUNDS);
    assertThat(check.problems()).isEmpty();
    assertNothingHeld();
  }

  /**
   * While {@code elsewhere} holds account {@code b}: SKIP returns null, FAIL throws {@link
   * LockBusyException} and a 200 ms wait throws {@link LockTimeoutException}, both naming {@code
   * acct:b}; each time {@code a} is let go and {@code b} stays with {@code elsewhere}, no body runs
   * and {@code elsewhere} can then take {@code a}. Once {@code elsewhere} has let both go (its
   * release may reach the store after its close returns) the transfer runs and nothing is left
   * held.
   *
   * @param elsewhere another engine on the same lock store, standing for another host
   * @param whileHeld further checks of the integration, run while {@code b} is still held elsewhere
   */
  public void withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld(
      Locksmith elsewhere, Runnable whileHeld) {
    try (Lease b = elsewhere.acquire(LockOptions.named(AccountLocks.NAME).withKey("b"))) {
      assertThat(accounts.transferOrSkip("b", "a", 7)).as("skipped").isNull();
      locks.assertOnlyHeldElsewhere(b);

      assertThatThrownBy(() -> accounts.transferOrFail("b", "a", 7))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("acct:b");
      locks.assertOnlyHeldElsewhere(b);

      assertThatThrownBy(() -> accounts.transferBriefly("b", "a", 7))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("acct:b");
      locks.assertOnlyHeldElsewhere(b);

      assertThat(accounts.book().runs()).as("no method ran").isZero();
      whileHeld.run();
      try (Lease a =
          elsewhere.tryAcquire(LockOptions.named(AccountLocks.NAME).withKey("a")).orElseThrow()) {
        assertThat(a.fencingToken()).isPositive();
      }
    }
    // the other host's release may still be on its way to the store when its close returns
    await().atMost(TIMEOUT).until(() -> locks.isFree("acct:a") && locks.isFree("acct:b"));

    assertThat(accounts.transferOrSkip("b", "a", 7)).isEqualTo("moved");
    assertThat(accounts.book().balance("a")).isEqualTo(Book.OPENING_BALANCE + 7);
    assertNothingHeld();
  }

  /**
   * Inside a transfer from {@code a} to {@code b}: a nested one-account call on {@code b} runs
   * under the outer lease (same fencing token, same current lease), both accounts stay held with
   * the outer tokens, and a nested transfer from {@code c} to {@code b} reuses the outer lease of
   * {@code b}, takes {@code c} with its own token and lets only {@code c} go on return. Every body
   * ran and nothing is left held.
   */
  public void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    AtomicReference<Long> inner = new AtomicReference<>();

    accounts.transfer(
        "a",
        "b",
        1,
        lease -> {
          inner.set(accounts.audit("b"));
          assertThat(inner.get()).isEqualTo(lease.lease("b").fencingToken());
          assertThat(Locks.current()).isSameAs(lease);
          assertThat(locks.holderToken("acct:a")).isEqualTo(lease.lease("a").fencingToken());
          assertThat(locks.holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          locks.assertHeldExactly("acct:a", "acct:b");
          accounts.transfer(
              "c",
              "b",
              0,
              nested -> {
                assertThat(nested.lease("b").fencingToken())
                    .isEqualTo(lease.lease("b").fencingToken());
                assertThat(locks.holderToken("acct:c")).isEqualTo(nested.lease("c").fencingToken());
              });
          assertThat(locks.isFree("acct:c")).as("the nested call released what it took").isTrue();
          assertThat(locks.holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          locks.assertHeldExactly("acct:a", "acct:b");
        });

    assertThat(inner.get()).isPositive();
    assertThat(accounts.book().runs()).as("every body ran").isEqualTo(3);
    assertNothingHeld();
  }

  /**
   * A lazy transfer takes nothing when called, holds both accounts from subscription until its work
   * completes (meanwhile another such call on the same accounts fails with {@link
   * LockBusyException} without running), then returns the work's value and lets both go.
   *
   * @param lazy calls the bean's lazy method
   * @throws Exception if the first call fails or times out
   */
  public void aLazyResultHoldsBothAccountsFromSubscriptionUntilItCompletes(LazyTransfer lazy)
      throws Exception {
    CompletableFuture<String> work = new CompletableFuture<>();
    Supplier<CompletableFuture<String>> first = lazy.call("b", "a", work);
    assertThat(locks.isFree("acct:a")).as("nothing is taken before subscription").isTrue();

    CompletableFuture<String> running = first.get();
    await().atMost(TIMEOUT).until(() -> !locks.isFree("acct:a") && !locks.isFree("acct:b"));
    CompletableFuture<String> refused =
        lazy.call("a", "b", CompletableFuture.completedFuture("x")).get();
    assertThat(refused)
        .failsWithin(TIMEOUT)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(LockBusyException.class);
    assertThat(accounts.book().runs()).as("only the first ran").isEqualTo(1);

    work.complete("done");
    assertThat(running.get(20, TimeUnit.SECONDS)).isEqualTo("done!");
    await().atMost(TIMEOUT).until(() -> locks.isFree("acct:a") && locks.isFree("acct:b"));
    assertNothingHeld();
  }

  /**
   * {@link LockedAccounts#settle} with an empty list fails with {@link LockKeyException} naming the
   * method, the key expression and the empty collection, before any body runs or lock is taken.
   *
   * @param method how the message names the annotated method, e.g. {@code "Accounts.settle(List)"}
   */
  public void anEmptyListOfAccountsFailsNamingTheMethod(String method) {
    assertThatThrownBy(() -> accounts.settle(List.of()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining(method)
        .hasMessageContaining("'#list'")
        .hasMessageContaining("empty collection");
    assertThat(accounts.book().runs()).isZero();
    assertNothingHeld();
  }

  /**
   * No lock of the scenarios' accounts has a holder, and where the provider lists what it holds, it
   * lists none of them.
   */
  public void assertNothingHeld() {
    locks.assertNothingHeld();
  }
}
