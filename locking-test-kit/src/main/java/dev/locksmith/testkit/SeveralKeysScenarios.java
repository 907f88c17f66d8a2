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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

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
    assertThat(accounts.book().balance("b")).isEqualTo(AccountBook.OPENING_BALANCE - 5);
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

    AccountBook book = accounts.book();
    assertThat(book.transfers()).isEqualTo(2L * ROUNDS);
    assertThat(book.balance("a")).isEqualTo(AccountBook.OPENING_BALANCE - ROUNDS);
    assertThat(book.balance("b")).isEqualTo(AccountBook.OPENING_BALANCE + ROUNDS);
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
    assertThat(accounts.book().balance("a")).isEqualTo(AccountBook.OPENING_BALANCE + 7);
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
