package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.server.LockServer;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * A bean whose method locks two accounts ({@code key = "{#from, #to}"}) in a real application
 * context against the in-process TCP lock server: one lease per account, taken sorted and all or
 * nothing, reentered per account by a nested call.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeveralKeysInterceptorTest {
  private static final int ROUNDS = 200;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private LockServer server;
  private ApplicationContext context;
  private AccountTransfers transfers;
  private Locksmith locksmith;

  /** Another host on the same lock server. */
  private Locksmith elsewhere;

  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @BeforeAll
  void start() throws IOException {
    server = LockServer.builder().port(0).build();
    String url = "tcp://127.0.0.1:" + server.start();
    context = ApplicationContext.run(Map.of("locksmith.url", url), "several-keys");
    transfers = context.getBean(AccountTransfers.class);
    locksmith = context.getBean(Locksmith.class);
    elsewhere = Locksmith.builder().defaultProvider(LockProviders.create(url)).build();
  }

  @AfterAll
  void stop() {
    pool.shutdownNow();
    elsewhere.close();
    context.close();
    server.close();
  }

  @BeforeEach
  void reset() {
    transfers.reset();
  }

  @AfterEach
  void nothingLeftHeld() {
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
    assertThat(isFree("acct:c")).isTrue();
  }

  private LockProvider provider() {
    return locksmith.providers().get("");
  }

  private long holderToken(String lockId) {
    return provider().status(lockId).currentHolder().orElseThrow().fencingToken();
  }

  /** Reads the lock's holder from the server without taking it, so nothing races the test. */
  private boolean isFree(String lockId) {
    return provider().status(lockId).currentHolder().isEmpty();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheServer() {
    AtomicReference<Lease> seen = new AtomicReference<>();

    transfers.transfer(
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
          seen.set(lease);
        });

    assertThat(seen.get()).as("the method ran").isNotNull();
    assertThat(seen.get().isValid()).as("released on return").isFalse();
    assertThat(transfers.balance("b")).isEqualTo(AccountTransfers.OPENING_BALANCE - 5);
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

    Future<?> forth =
        pool.submit(() -> race(barrier, () -> transfers.transfer("a", "b", 3, check)));
    Future<?> back = pool.submit(() -> race(barrier, () -> transfers.transfer("b", "a", 2, check)));
    forth.get(120, TimeUnit.SECONDS); // a deadlock would time out here
    back.get(120, TimeUnit.SECONDS);

    assertThat(transfers.transfers()).isEqualTo(2L * ROUNDS);
    assertThat(transfers.balance("a")).isEqualTo(AccountTransfers.OPENING_BALANCE - ROUNDS);
    assertThat(transfers.balance("b")).isEqualTo(AccountTransfers.OPENING_BALANCE + ROUNDS);
    assertThat(problems).isEmpty();
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
      assertThat(transfers.transferOrSkip("b", "a", 7)).as("skipped").isNull();
      assertThat(isFree("acct:a")).as("a was let go").isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());

      assertThatThrownBy(() -> transfers.transferOrFail("b", "a", 7))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("acct:b");
      assertThat(isFree("acct:a")).isTrue();

      assertThatThrownBy(() -> transfers.transferBriefly("b", "a", 7))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("acct:b");
      assertThat(isFree("acct:a")).isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());

      assertThat(transfers.runs()).as("no method ran").isZero();
      try (Lease a = elsewhere.tryAcquire(LockOptions.named("acct").withKey("a")).orElseThrow()) {
        assertThat(a.fencingToken()).isPositive();
      }
    }

    assertThat(transfers.transferOrSkip("b", "a", 7)).isEqualTo("moved");
    assertThat(transfers.balance("a")).isEqualTo(AccountTransfers.OPENING_BALANCE + 7);
  }

  @Test
  void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    AtomicReference<Long> inner = new AtomicReference<>();

    transfers.transfer(
        "a",
        "b",
        1,
        lease -> {
          inner.set(transfers.audit("b"));
          assertThat(inner.get()).isEqualTo(lease.lease("b").fencingToken());
          assertThat(Locks.current()).isSameAs(lease);
          assertThat(holderToken("acct:a")).isEqualTo(lease.lease("a").fencingToken());
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
          transfers.transfer(
              "c",
              "b",
              0,
              nested -> {
                assertThat(nested.lease("b").fencingToken())
                    .isEqualTo(lease.lease("b").fencingToken());
                assertThat(holderToken("acct:c")).isEqualTo(nested.lease("c").fencingToken());
              });
          assertThat(isFree("acct:c")).as("the nested call released what it took").isTrue();
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
        });

    assertThat(inner.get()).isPositive();
    assertThat(transfers.runs()).as("every body ran").isEqualTo(3);
  }

  @Test
  void aMonoHoldsBothAccountsFromSubscriptionUntilItCompletes() throws Exception {
    Sinks.One<String> work = Sinks.one();
    Mono<String> first = transfers.settleLater("b", "a", work.asMono());
    assertThat(isFree("acct:a")).as("nothing is taken before subscription").isTrue();

    CompletableFuture<String> running = first.toFuture();
    await().atMost(TIMEOUT).until(() -> !isFree("acct:a") && !isFree("acct:b"));
    StepVerifier.create(transfers.settleLater("a", "b", Mono.just("x")))
        .expectError(LockBusyException.class)
        .verify(TIMEOUT);
    assertThat(transfers.runs()).as("only the first ran").isEqualTo(1);

    work.tryEmitValue("done");
    assertThat(running.get(20, TimeUnit.SECONDS)).isEqualTo("done!");
    await().atMost(TIMEOUT).until(() -> isFree("acct:a") && isFree("acct:b"));
  }

  @Test
  void anEmptyListOfAccountsFailsNamingTheMethod() {
    assertThatThrownBy(() -> transfers.settle(List.of()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("AccountTransfers.settle(List)")
        .hasMessageContaining("'#list'")
        .hasMessageContaining("empty collection");
    assertThat(transfers.runs()).isZero();
  }
}
