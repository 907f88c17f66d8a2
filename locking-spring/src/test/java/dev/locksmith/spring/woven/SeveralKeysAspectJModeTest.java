package dev.locksmith.spring.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code locksmith.mode=aspectj} with a woven bean whose method locks two accounts ({@code key =
 * "{#from, #to}"}): one lease per account from the Spring-built engine, taken sorted and all or
 * nothing. Same context as {@link AspectJModeTest}.
 */
@AspectJModeBootTest
class SeveralKeysAspectJModeTest {
  private static final int ROUNDS = 200;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @Autowired WovenAccounts accounts;
  @Autowired Locksmith locksmith;

  /** Another host on the lock store of the context's {@code locksmith.url}. */
  private final Locksmith elsewhere =
      Locksmith.builder().defaultProvider(LockProviders.create("mem:aspectj-mode")).build();

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

  private LockProvider provider() {
    return locksmith.providers().get("");
  }

  private long holderToken(String lockId) {
    return provider().status(lockId).currentHolder().orElseThrow().fencingToken();
  }

  private boolean isFree(String lockId) {
    return provider().status(lockId).currentHolder().isEmpty();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    assertThat(AopUtils.isAopProxy(accounts)).isFalse();
    assertThat(AspectLocksmith.engine()).isSameAs(locksmith);
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
          assertThat(holderToken("acct:a")).isEqualTo(lease.lease("a").fencingToken());
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          seen.set(lease);
        });

    assertThat(seen.get()).as("the method ran").isNotNull();
    assertThat(seen.get().isValid()).as("released on return").isFalse();
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
    assertThat(accounts.balance("b")).isEqualTo(WovenAccounts.OPENING_BALANCE - 5);
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
    assertThat(accounts.balance("a")).isEqualTo(WovenAccounts.OPENING_BALANCE - ROUNDS);
    assertThat(accounts.balance("b")).isEqualTo(WovenAccounts.OPENING_BALANCE + ROUNDS);
    assertThat(problems).isEmpty();
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
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
  void withOneAccountHeldElsewhereSkipAndFailTakeNeitherAndLeaveNothingHeld() {
    try (Lease b = elsewhere.acquire(LockOptions.named("acct").withKey("b"))) {
      assertThat(accounts.transferOrSkip("b", "a", 7)).as("skipped").isNull();
      assertThat(isFree("acct:a")).as("a was let go").isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());

      assertThatThrownBy(() -> accounts.transferOrFail("b", "a", 7))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("acct:b");
      assertThat(isFree("acct:a")).isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());

      assertThat(accounts.runs).as("neither method ran").hasValue(0);
      try (Lease a = elsewhere.tryAcquire(LockOptions.named("acct").withKey("a")).orElseThrow()) {
        assertThat(a.fencingToken()).isPositive();
      }
    }

    assertThat(accounts.transferOrSkip("b", "a", 7)).isEqualTo("moved");
    assertThat(accounts.balance("a")).isEqualTo(WovenAccounts.OPENING_BALANCE + 7);
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
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
    assertThat(accounts.runs.get()).as("only the first ran").isEqualTo(1);

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
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
        });

    assertThat(inner.get()).isPositive();
    assertThat(accounts.runs).as("both bodies ran").hasValue(2);
    assertThat(isFree("acct:b")).isTrue();
  }
}
