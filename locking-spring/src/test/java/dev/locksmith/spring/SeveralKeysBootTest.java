package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A proxied bean whose method locks two accounts ({@code key = "{#from, #to}"}): one lease per
 * account, taken sorted and all or nothing, reentered per account by a nested call.
 */
@SpringBootTest(
    classes = SeveralKeysBootTest.App.class,
    properties = {
      "locksmith.url=mem:" + SeveralKeysBootTest.STORE,
      "spring.datasource.url=jdbc:h2:mem:several-keys;DB_CLOSE_DELAY=-1"
    })
class SeveralKeysBootTest {
  static final String STORE = "spring-several-keys";
  private static final int ROUNDS = 200;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @Autowired Accounts accounts;
  @Autowired Locksmith locksmith;
  @Autowired InTransaction inTransaction;

  /** Another host on the same lock store. */
  private final Locksmith elsewhere =
      Locksmith.builder().defaultProvider(LockProviders.create("mem:" + STORE)).build();

  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @BeforeEach
  void reset() {
    accounts.reset();
  }

  @AfterEach
  void close() {
    pool.shutdownNow();
    elsewhere.close();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Accounts accounts() {
      return new Accounts();
    }

    @Bean
    InTransaction inTransaction() {
      return new InTransaction();
    }
  }

  /** A caller that opens the transaction the locked calls join. */
  public static class InTransaction {
    @Transactional
    public void run(Runnable work) {
      work.run();
    }
  }

  /**
   * Transfers between accounts. Only the locks guard the balances and the transfer count: their
   * updates are read-then-write, so two calls running at once on one account would lose one.
   */
  public static class Accounts {
    static final long OPENING_BALANCE = 1_000;

    private final Map<String, Long> balances = new ConcurrentHashMap<>();
    private final AtomicLong transfers = new AtomicLong();

    private final AtomicInteger runs = new AtomicInteger();

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

    /** Moves {@code amount}, waiting at most 200 ms for both accounts. */
    @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "200ms")
    public String transferBriefly(String from, String to, long amount) {
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

    /** Locks every account of the list. */
    @DistributedLock(name = "acct", key = "#list")
    public String settle(List<String> list) {
      runs.incrementAndGet();
      return "settled";
    }

    long balance(String account) {
      return balances.getOrDefault(account, OPENING_BALANCE);
    }

    long transfers() {
      return transfers.get();
    }

    /** How many times a method body ran (through the proxy: its fields belong to the target). */
    int runs() {
      return runs.get();
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

  private LockProvider provider() {
    return locksmith.providers().get("");
  }

  private long holderToken(String lockId) {
    return provider().status(lockId).currentHolder().orElseThrow().fencingToken();
  }

  private boolean isFree(String lockId) {
    return provider().status(lockId).currentHolder().isEmpty();
  }

  private List<String> held() {
    return provider().listHeld().orElseThrow().stream().map(LockStatus::lockId).sorted().toList();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    assertThat(AopUtils.isAopProxy(accounts)).isTrue();
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
          assertThat(holderToken("acct:a")).isEqualTo(lease.lease("a").fencingToken());
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          assertThat(held()).containsExactly("acct:a", "acct:b");
          seen.set(lease);
        });

    assertThat(seen.get()).as("the method ran").isNotNull();
    assertThat(seen.get().isValid()).as("released on return").isFalse();
    assertThat(held()).isEmpty();
    assertThat(accounts.balance("b")).isEqualTo(Accounts.OPENING_BALANCE - 5);
  }

  @Test
  void transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate() throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(2);
    Map<String, Long> lastTokens = new ConcurrentHashMap<>();
    Queue<String> problems = new ConcurrentLinkedQueue<>();
    Consumer<Lease> check =
        lease -> {
          if (lease.leases().size() != 2) {
            problems.add("leases: " + lease.leases());
          }
          for (Lease one : lease.leases()) {
            Long previous = lastTokens.put(one.lockId(), one.fencingToken());
            if (previous != null && one.fencingToken() <= previous) {
              problems.add(one.lockId() + ": token " + one.fencingToken() + " after " + previous);
            }
          }
        };

    Future<?> forth = pool.submit(() -> race(barrier, () -> accounts.transfer("a", "b", 3, check)));
    Future<?> back = pool.submit(() -> race(barrier, () -> accounts.transfer("b", "a", 2, check)));
    forth.get(120, TimeUnit.SECONDS); // a deadlock would time out here
    back.get(120, TimeUnit.SECONDS);

    assertThat(accounts.transfers()).isEqualTo(2L * ROUNDS);
    assertThat(accounts.balance("a")).isEqualTo(Accounts.OPENING_BALANCE - ROUNDS);
    assertThat(accounts.balance("b")).isEqualTo(Accounts.OPENING_BALANCE + ROUNDS);
    assertThat(problems).isEmpty();
    assertThat(held()).isEmpty();
  }

  /** Makes both threads start each call together, {@link #ROUNDS} times. */
  private static Void race(CyclicBarrier barrier, Runnable call) throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      barrier.await(30, TimeUnit.SECONDS);
      call.run();
    }
    return null;
  }

  @Test
  void withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld() {
    try (Lease b = elsewhere.acquire(LockOptions.named("acct").withKey("b"))) {
      assertThat(accounts.transferOrSkip("b", "a", 7)).as("skipped").isNull();
      assertThat(held()).as("a was let go").containsExactly("acct:b");
      assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());

      assertThatThrownBy(() -> accounts.transferOrFail("b", "a", 7))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("acct:b");
      assertThat(held()).containsExactly("acct:b");

      assertThatThrownBy(() -> accounts.transferBriefly("b", "a", 7))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("acct:b");
      assertThat(held()).containsExactly("acct:b");

      assertThat(accounts.runs()).as("no method ran").isZero();
      try (Lease a = elsewhere.tryAcquire(LockOptions.named("acct").withKey("a")).orElseThrow()) {
        assertThat(a.fencingToken()).isPositive();
      }
    }

    assertThat(accounts.transferOrSkip("b", "a", 7)).isEqualTo("moved");
    assertThat(accounts.balance("a")).isEqualTo(Accounts.OPENING_BALANCE + 7);
    assertThat(held()).isEmpty();
  }

  @Test
  void aMonoHoldsBothAccountsFromSubscriptionUntilItCompletes() throws Exception {
    Sinks.One<String> work = Sinks.one();
    Mono<String> first = accounts.settleLater("b", "a", work.asMono());
    assertThat(isFree("acct:a")).as("nothing is taken before subscription").isTrue();

    CompletableFuture<String> running = first.toFuture();
    await().atMost(TIMEOUT).until(() -> !isFree("acct:a") && !isFree("acct:b"));
    assertThatThrownBy(() -> accounts.settleLater("a", "b", Mono.just("x")).block(TIMEOUT))
        .isInstanceOf(LockBusyException.class);
    assertThat(accounts.runs()).as("only the first ran").isEqualTo(1);

    work.tryEmitValue("done");
    assertThat(running.get(20, TimeUnit.SECONDS)).isEqualTo("done!");
    await().atMost(TIMEOUT).until(() -> isFree("acct:a") && isFree("acct:b"));
  }

  @Test
  void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    AtomicReference<Long> inner = new AtomicReference<>();

    accounts.transfer(
        "a",
        "b",
        1,
        lease -> {
          inner.set(accounts.audit("b"));
          assertThat(inner.get()).isEqualTo(lease.lease("b").fencingToken());
          assertThat(Locks.current()).isSameAs(lease);
          assertThat(held()).as("still held after the nested call").contains("acct:a", "acct:b");
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
        });

    assertThat(inner.get()).isPositive();
    assertThat(accounts.runs()).as("both bodies ran").isEqualTo(2);
    assertThat(held()).isEmpty();
  }

  @Test
  void inAJoinedTransactionBothAccountsStayHeldUntilItEndsAndLaterCallsReenterThem() {
    AtomicReference<Lease> first = new AtomicReference<>();

    inTransaction.run(
        () -> {
          accounts.transfer("a", "b", 1, first::set);
          assertThat(held()).as("released when the transaction ends").contains("acct:a", "acct:b");

          accounts.transfer(
              "c",
              "b",
              1,
              lease -> {
                assertThat(lease.lease("b").fencingToken())
                    .isEqualTo(first.get().lease("b").fencingToken());
                assertThat(held()).containsExactly("acct:a", "acct:b", "acct:c");
              });
          assertThat(accounts.audit("a")).isEqualTo(first.get().lease("a").fencingToken());
          assertThat(held()).containsExactly("acct:a", "acct:b", "acct:c");
        });

    assertThat(held()).isEmpty();
    assertThat(accounts.runs()).isEqualTo(3);
  }

  @Test
  void anEmptyListOfAccountsFailsNamingTheMethod() {
    assertThatThrownBy(() -> accounts.settle(List.of()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("SeveralKeysBootTest$Accounts.settle(List)")
        .hasMessageContaining("'#list'")
        .hasMessageContaining("empty collection");
    assertThat(accounts.runs()).isZero();
    assertThat(held()).isEmpty();
  }
}
