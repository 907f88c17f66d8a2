package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static dev.locksmith.core.KeySetEngine.ACCT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Locks over several keys at once: one global order, all or nothing, one lease per key. */
class SeveralKeysTest {
  private static final List<String> ACCOUNTS = List.of("a", "b", "c", "d", "e");

  private final MemoryLockProvider provider = MemoryLockProvider.isolated();
  @AutoClose private final KeySetEngine fixture = new KeySetEngine(provider, provider, 8);
  private final Locksmith locksmith = fixture.locksmith;
  private final RecordingListener events = fixture.events;

  /** A bank whose balances only the locks guard. */
  static final class Bank {
    final long[] balances = new long[ACCOUNTS.size()];
    final long[] lastTokens = new long[ACCOUNTS.size()];
    final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    Bank() {
      Arrays.fill(balances, 1_000);
    }

    @DistributedLock(name = "acct", key = "#accounts", waitTimeout = "20s")
    void transfer(List<String> accounts, String from, String to, long amount) {
      move(from, to, amount);
    }

    void move(String from, String to, long amount) {
      Lease lease = Locks.current();
      for (String account : List.of(from, to)) {
        int i = ACCOUNTS.indexOf(account);
        long token = lease.lease(account).fencingToken();
        if (token <= lastTokens[i]) {
          violations.add(account + ": token " + token + " after " + lastTokens[i]);
        }
        lastTokens[i] = token;
      }
      int f = ACCOUNTS.indexOf(from);
      int t = ACCOUNTS.indexOf(to);
      long before = balances[f];
      Thread.onSpinWait(); // widen the window a lost update would need
      balances[f] = before - amount;
      balances[t] = balances[t] + amount;
    }

    @DistributedLock(name = "acct", key = "#accounts")
    CompletableFuture<String> later(List<String> accounts, CompletableFuture<String> work) {
      return work;
    }

    @DistributedLock(name = "acct", key = "#accounts")
    String none(List<String> accounts) {
      return "ran";
    }
  }

  @Test
  void randomTransfersOverRandomlyOrderedPairsNeverDeadlockAndConserveTheTotal() throws Exception {
    Bank bank = new Bank();
    List<Future<?>> workers = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      boolean annotated = w % 2 == 0;
      workers.add(
          fixture.pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < 300; n++) {
                  int f = random.nextInt(ACCOUNTS.size());
                  int t = (f + 1 + random.nextInt(ACCOUNTS.size() - 1)) % ACCOUNTS.size();
                  String from = ACCOUNTS.get(f);
                  String to = ACCOUNTS.get(t);
                  long amount = random.nextLong(1, 50);
                  if (annotated) {
                    call(locksmith, bank, "transfer", List.of(from, to), from, to, amount);
                  } else {
                    locksmith.run(ACCT.withKeys(to, from), () -> bank.move(from, to, amount));
                  }
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(60, TimeUnit.SECONDS); // a deadlock would time out here
    }
    assertThat(Arrays.stream(bank.balances).sum()).isEqualTo(1_000L * ACCOUNTS.size());
    assertThat(bank.violations).isEmpty();
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void failAndSkipTakeNothingWhenOneKeyIsBusy() throws Exception {
    fixture.takenByAnother("acct:b");

    assertThatThrownBy(
            () -> locksmith.acquire(ACCT.withKeys("c", "a", "b").withOnBusy(OnBusy.FAIL)))
        .isInstanceOf(LockBusyException.class)
        .hasMessageContaining("acct:b");
    assertThat(fixture.held()).containsExactly("acct:b");
    // The set was asked for at once: the store took none of it, and the busy event names the
    // set's first lock.
    assertThat(events.events).containsExactly("busy acct:a");

    boolean ran = locksmith.run(ACCT.withKeys("a", "b", "c").withOnBusy(OnBusy.SKIP), () -> {});
    assertThat(ran).isFalse();
    assertThat(fixture.held()).containsExactly("acct:b");
    assertThat(locksmith.tryAcquire(ACCT.withKeys("a", "b"))).isEmpty();
    assertThat(fixture.held()).containsExactly("acct:b");
    assertThat(events.events).noneMatch(e -> e.startsWith("acquired"));
  }

  @Test
  void waitThatTimesOutLeavesNoKeyHeld() {
    fixture.takenByAnother("acct:c");
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                locksmith.acquire(
                    ACCT.withKeys("c", "b", "a").withWaitTimeout(Duration.ofMillis(300))))
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining("acct:c");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(fixture.held()).containsExactly("acct:c");
    assertThat(events.events).contains("released acct:a", "released acct:b");
  }

  @Test
  void aTimeoutOnALaterKeyReportsTheWholeWaitOfTheSet() throws Exception {
    LeaseGrant a = fixture.takenByAnother("acct:a");
    fixture.takenByAnother("acct:c");
    Duration waitTimeout = Duration.ofMillis(800);
    Future<Lease> waiting =
        fixture.pool.submit(
            () -> locksmith.acquire(ACCT.withKeys("a", "b", "c").withWaitTimeout(waitTimeout)));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fixture.memory.status("acct:a").waiters() > 0);
    LockSupport.parkNanos(Duration.ofMillis(300).toNanos()); // a's holder works on a while
    assertThat(fixture.memory.release(a)).isTrue();

    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            LockTimeoutException.class,
            e -> {
              assertThat(e.lockId()).isEqualTo("acct:c");
              assertThat(e.waited()).as("from the set's start").isGreaterThanOrEqualTo(waitTimeout);
            });
  }

  @Test
  void keysTakenByAWaitThatTimesOutAreNotKeptForAMinimumHoldSinceNothingRan() {
    fixture.takenByAnother("acct:c");

    assertThatThrownBy(
            () ->
                locksmith.acquire(
                    ACCT.withKeys("c", "b", "a")
                        .withMinHold(Duration.ofSeconds(30))
                        .withWaitTimeout(Duration.ofMillis(300))))
        .isInstanceOf(LockTimeoutException.class);

    assertThat(fixture.held()).containsExactly("acct:c");
  }

  @Test
  void waitGetsTheWholeSetOnceTheBusyKeyIsFreed() throws Exception {
    LeaseGrant other = fixture.takenByAnother("acct:b");
    Future<List<String>> waiting = fixture.waitingOn("acct:b", ACCT.withKeys("b", "a"));
    assertThat(fixture.held()).containsExactly("acct:a", "acct:b");

    provider.release(other);

    assertThat(waiting.get(10, TimeUnit.SECONDS)).containsExactly("acct:a", "acct:b");
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void aCompletionStageHoldsEveryKeyUntilItCompletes() throws Exception {
    Bank bank = new Bank();
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletionStage<?> result =
        (CompletionStage<?>) call(locksmith, bank, "later", List.of("b", "a"), work);
    assertThat(fixture.held()).containsExactly("acct:a", "acct:b");

    work.complete("done");

    assertThat(result.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void duplicatesCollapseAndEachKeyHasItsOwnLeaseAndToken() {
    LockOptions options = ACCT.withKeys("b", "a", "b");
    assertThat(options.keys()).containsExactly("a", "b");
    assertThat(options.lockIds()).containsExactly("acct:a", "acct:b");
    assertThat(ACCT.withKeys("a", "a").keys()).isEmpty();
    assertThat(ACCT.withKeys("a", "a").key()).isEqualTo("a");

    try (Lease first = locksmith.acquire(ACCT.withKey("b"))) {
      assertThat(first.leases()).containsExactly(first);
    }
    try (Lease lease = locksmith.acquire(options)) {
      assertThat(lease.leases()).extracting(Lease::lockId).containsExactly("acct:a", "acct:b");
      assertThat(fixture.held()).containsExactly("acct:a", "acct:b");
      assertThat(lease.lockId()).isEqualTo("acct:a");
      assertThat(lease.key()).isEqualTo("a");
      assertThat(lease.fencingToken()).isEqualTo(lease.lease("a").fencingToken());
      assertThat(lease.lease("b").lockId()).isEqualTo("acct:b");
      assertThat(lease.lease("b").fencingToken()).isGreaterThan(0);
      assertThatThrownBy(() -> lease.lease("z"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no key 'z'")
          .hasMessageContaining("[a, b]");
    }
    assertThat(fixture.held()).isEmpty();
    assertThat(events.events).contains("released acct:a", "released acct:b");
  }

  @Test
  void anEmptyCollectionOrAnEmptyKeyIsAnError() {
    assertThatThrownBy(() -> call(locksmith, new Bank(), "none", List.of()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Bank.none(List): key expression '#accounts'")
        .hasMessageContaining("evaluated to an empty collection");
    List<String> withNull = new ArrayList<>(List.of("a"));
    withNull.add(null);
    assertThatThrownBy(() -> call(locksmith, new Bank(), "none", withNull))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Bank.none(List)")
        .hasMessageContaining("evaluated to null");
    assertThatThrownBy(() -> ACCT.withKeys(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no lock keys given for 'acct'");
    assertThatThrownBy(() -> ACCT.withKeys("a", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock key is empty");
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void nestedCallsOnASubsetRunUnderTheOuterLeases() throws Exception {
    locksmith.run(
        ACCT.withKeys("a", "b"),
        () -> {
          Lease outer = Locks.current();
          long a = outer.lease("a").fencingToken();
          long b = outer.lease("b").fencingToken();
          long inner = locksmith.call(ACCT.withKey("a"), () -> Locks.current().fencingToken());
          assertThat(inner).isEqualTo(a);
          List<Long> again =
              locksmith.call(
                  ACCT.withKeys("b", "a"),
                  () -> Locks.current().leases().stream().map(Lease::fencingToken).toList());
          assertThat(again).containsExactly(a, b);
          locksmith.run(
              ACCT.withKeys("a", "c"),
              () -> {
                assertThat(Locks.current().lease("a").fencingToken()).isEqualTo(a);
                assertThat(fixture.held()).containsExactly("acct:a", "acct:b", "acct:c");
              });
          try (Lease nested = locksmith.acquire(ACCT.withKeys("a", "b"))) {
            assertThat(nested.lease("b").fencingToken()).isEqualTo(b);
          }
          assertThat(fixture.held()).containsExactly("acct:a", "acct:b");
          assertThat(outer.isValid()).isTrue();
          assertThat(Locks.current()).isSameAs(outer);
        });
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void losingOneKeysLeaseInvalidatesTheWholeLease() {
    MemoryLockProvider memory = MemoryLockProvider.isolated();
    LossReportingProvider reporting = new LossReportingProvider(memory);
    try (Locksmith engine =
        Locksmith.builder().defaultProvider(reporting).listener(events).build()) {
      Lease lease =
          engine.acquire(ACCT.withKeys("a", "b").withTtl(Duration.ofMinutes(5)).withRenew(false));
      assertThat(lease.isValid()).isTrue();

      reporting.reportLost("acct:b");

      assertThat(lease.isValid()).isFalse();
      assertThat(lease.lease("a").isValid()).isTrue();
      assertThat(lease.lease("b").isValid()).isFalse();
      assertThat(events.events).contains("lost acct:b").doesNotContain("lost acct:a");
      assertThatThrownBy(lease::checkValid)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("acct:b");
      lease.close();
      assertThat(lease.lease("a").isValid()).isFalse();
      assertThat(memory.listHeld().orElseThrow()).isEmpty();
    }
  }
}
