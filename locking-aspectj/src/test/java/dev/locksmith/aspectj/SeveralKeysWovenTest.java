package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.util.List;
import java.util.Map;
import java.util.Queue;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A woven method whose key names two accounts ({@code key = "{#from, #to}"}) holds one lock per
 * account, on a {@code file:} provider shared with another owner.
 */
class SeveralKeysWovenTest {
  private static final int ROUNDS = 200;

  @RegisterExtension final FileEngines engines = new FileEngines();
  final Transfers transfers = new Transfers();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopThreads() {
    pool.shutdownNow();
  }

  private static LockProvider provider() {
    return AspectLocksmith.engine().providers().get("");
  }

  private static LockStatus status(String lockId) {
    return provider().status(lockId);
  }

  private static long holderToken(String lockId) {
    return status(lockId).currentHolder().orElseThrow().fencingToken();
  }

  private static boolean isFree(String lockId) {
    return status(lockId).currentHolder().isEmpty();
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
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
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
    assertThat(transfers.balance("b")).isEqualTo(Transfers.OPENING_BALANCE - 5);
    assertEachAccountLockedOnceAndReleased();
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
    assertThat(transfers.balance("a")).isEqualTo(Transfers.OPENING_BALANCE - ROUNDS);
    assertThat(transfers.balance("b")).isEqualTo(Transfers.OPENING_BALANCE + ROUNDS);
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
    Locksmith other = engines.otherProcess();
    try (Lease elsewhere = other.acquire(LockOptions.named("acct").withKey("b"))) {
      assertThat(transfers.transferOrSkip("b", "a", 7)).as("skipped").isNull();
      assertThat(isFree("acct:a")).as("a was taken first, then let go").isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(elsewhere.fencingToken());

      assertThatThrownBy(() -> transfers.transferOrFail("b", "a", 7))
          .isInstanceOf(LockBusyException.class)
          .hasMessageContaining("acct:b");
      assertThat(isFree("acct:a")).isTrue();
      assertThat(holderToken("acct:b")).isEqualTo(elsewhere.fencingToken());

      assertThat(transfers.runs).as("neither method ran").hasValue(0);
      List<String> events = engines.listener.events();
      assertThat(events).filteredOn(event -> event.startsWith("busy ")).hasSize(2);
      assertThat(events).doesNotContain("acquired acct:b");
      assertThat(events)
          .as("whatever was taken before the busy key was let go")
          .filteredOn("released acct:a"::equals)
          .hasSameSizeAs(events.stream().filter("acquired acct:a"::equals).toList());
      try (Lease a = other.tryAcquire(LockOptions.named("acct").withKey("a")).orElseThrow()) {
        assertThat(a.fencingToken()).isPositive();
      }
    }

    assertThat(transfers.transferOrSkip("b", "a", 7)).isEqualTo("moved");
    assertThat(transfers.balance("a")).isEqualTo(Transfers.OPENING_BALANCE + 7);
    assertThat(isFree("acct:a")).isTrue();
    assertThat(isFree("acct:b")).isTrue();
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
          assertThat(holderToken("acct:b")).isEqualTo(lease.lease("b").fencingToken());
        });

    assertThat(inner.get()).isPositive();
    assertThat(transfers.runs).hasValue(2);
    assertEachAccountLockedOnceAndReleased();
  }

  /** One grant of each account's lock, and its release: a nested call took nothing more. */
  private void assertEachAccountLockedOnceAndReleased() {
    List<String> events = engines.listener.events();
    assertThat(events)
        .filteredOn(event -> event.startsWith("acquired "))
        .containsExactlyInAnyOrder("acquired acct:a", "acquired acct:b");
    assertThat(events)
        .filteredOn(event -> event.startsWith("released "))
        .containsExactlyInAnyOrder("released acct:a", "released acct:b");
  }

  @Test
  void anEmptyListOfAccountsFailsNamingTheMethod() {
    assertThatThrownBy(() -> transfers.settle(List.of()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Transfers.settle(List)")
        .hasMessageContaining("empty collection");
    assertThat(transfers.runs).hasValue(0);
    assertThat(engines.listener.events()).isEmpty();
  }
}
