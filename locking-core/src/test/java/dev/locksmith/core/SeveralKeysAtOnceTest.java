package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static dev.locksmith.core.KeySetEngine.ACCT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A call over several keys asks the provider for the whole set at once ({@link
 * LockProvider#tryAcquireAll}): one round trip when the keys are free, nothing held when SKIP or
 * FAIL find one busy, WAIT falling back to one key at a time in lock order; at most {@link
 * LockProvider#MAX_KEYS_PER_CALL} keys per call.
 */
class SeveralKeysAtOnceTest {

  private final MemoryLockProvider memory = MemoryLockProvider.isolated();
  private final CountingProvider provider = new CountingProvider(memory);
  @AutoClose private final KeySetEngine fixture = new KeySetEngine(memory, provider, 2);
  private final Locksmith locksmith = fixture.locksmith;
  private final RecordingListener events = fixture.events;

  /** The store, but for the sets of keys asked for at once, which {@code answer} answers. */
  private LockProvider answeringSets(
      Function<List<LockRequest>, Optional<List<LeaseGrant>>> answer) {
    return new ForwardingProvider(memory) {
      @Override
      public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
        return answer.apply(requests);
      }
    };
  }

  /** Locked methods over a collection of keys. */
  static final class Jobs {
    @DistributedLock(name = "acct", key = "#accounts", onBusy = OnBusy.FAIL)
    String each(List<String> accounts) {
      return "ran";
    }
  }

  @Test
  void freeKeysAreTakenInOneProviderCallUnderEveryBusyPolicy() throws Exception {
    for (OnBusy onBusy : List.of(OnBusy.FAIL, OnBusy.SKIP, OnBusy.WAIT)) {
      provider.calls.clear();
      List<String> during = new ArrayList<>();
      boolean ran =
          locksmith.run(
              ACCT.withKeys("c", "a", "b").withOnBusy(onBusy),
              () -> {
                during.addAll(provider.calls);
                assertThat(fixture.held()).containsExactly("acct:a", "acct:b", "acct:c");
                assertThat(Locks.current().leases())
                    .extracting(Lease::lockId)
                    .containsExactly("acct:a", "acct:b", "acct:c");
              });
      assertThat(ran).as("%s ran", onBusy).isTrue();
      assertThat(during).as("provider calls under %s", onBusy).containsExactly("tryAcquireAll 3");
      assertThat(fixture.held()).isEmpty();
      assertThat(provider.calls)
          .as("released in reverse order under %s", onBusy)
          .endsWith("release acct:c", "release acct:b", "release acct:a");
    }
    assertThat(events.events)
        .containsSubsequence("acquired acct:a", "acquired acct:b", "acquired acct:c");
  }

  @Test
  void eachKeyHasItsOwnLeaseWithATokenAboveTheLastGrant() {
    long before =
        memory
            .tryAcquire(LockRequest.of("acct:b", Duration.ofSeconds(30)))
            .map(
                g -> {
                  memory.release(g);
                  return g.fencingToken();
                })
            .orElseThrow();
    try (Lease lease = locksmith.acquire(ACCT.withKeys("a", "b"))) {
      assertThat(lease.lease("b").fencingToken()).isGreaterThan(before);
      assertThat(lease.lease("a").ownerToken()).isNotEqualTo(lease.lease("b").ownerToken());
    }
  }

  @Test
  void failAndSkipOnABusySetHoldNothingAndCallTheProviderOnce() throws Exception {
    LeaseGrant other = fixture.takenByAnother("acct:b");

    assertThatThrownBy(
            () -> locksmith.acquire(ACCT.withKeys("c", "a", "b").withOnBusy(OnBusy.FAIL)))
        .isInstanceOfSatisfying(
            LockBusyException.class,
            e -> {
              assertThat(e.lockIds()).containsExactly("acct:a", "acct:b", "acct:c");
              assertThat(e.lockId()).isEqualTo("acct:a");
            })
        .hasMessage(
            "One of the locks ['acct:a', 'acct:b', 'acct:c'] is held by another owner; they were asked"
                + " for at once, all or nothing, and none was taken");
    assertThat(provider.calls).containsExactly("tryAcquireAll 3");
    assertThat(fixture.held()).containsExactly("acct:b");

    provider.calls.clear();
    boolean ran = locksmith.run(ACCT.withKeys("a", "b", "c").withOnBusy(OnBusy.SKIP), () -> {});
    assertThat(ran).isFalse();
    assertThat(provider.calls).containsExactly("tryAcquireAll 3");
    assertThat(fixture.held()).containsExactly("acct:b");
    assertThat(events.events).containsExactly("busy acct:a", "busy acct:a");

    memory.release(other);
  }

  @Test
  void waitOnABusySetFallsBackToOneKeyAtATimeAndGetsItOnceReleased() throws Exception {
    LeaseGrant other = fixture.takenByAnother("acct:b");
    Future<List<String>> waiting = fixture.waitingOn("acct:b", ACCT.withKeys("c", "b", "a"));
    assertThat(fixture.held()).containsExactly("acct:a", "acct:b");

    memory.release(other);

    assertThat(waiting.get(10, TimeUnit.SECONDS)).containsExactly("acct:a", "acct:b", "acct:c");
    assertThat(provider.calls)
        .startsWith("tryAcquireAll 3", "acquire acct:a", "acquire acct:b", "acquire acct:c");
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void reenteredKeysStayBorrowedAndTheRestAreTakenAtOnce() throws Exception {
    locksmith.run(
        ACCT.withKey("b"),
        () -> {
          long b = Locks.current().fencingToken();
          provider.calls.clear();
          locksmith.run(
              ACCT.withKeys("a", "b", "c"),
              () -> {
                assertThat(provider.calls).containsExactly("tryAcquireAll 2");
                assertThat(Locks.current().lease("b").fencingToken()).isEqualTo(b);
                assertThat(fixture.held()).containsExactly("acct:a", "acct:b", "acct:c");
              });
          assertThat(fixture.held()).containsExactly("acct:b");
          provider.calls.clear();
          locksmith.run(
              ACCT.withKeys("a", "b"),
              () -> assertThat(provider.calls).containsExactly("acquire acct:a"));
        });
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void atMostSixtyFourDistinctKeysPerCall() throws Exception {
    List<String> many = IntStream.range(0, 65).mapToObj(i -> "k" + i).toList();
    assertThatThrownBy(() -> call(locksmith, new Jobs(), "each", many))
        .isInstanceOf(LockKeyException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.core.SeveralKeysAtOnceTest$Jobs.each(List): key"
                + " expression '#accounts' evaluated to 65"
                + " distinct keys; one call may lock at most 64"
                + " (LockProvider.MAX_KEYS_PER_CALL): lock a coarser key, or split the work");
    assertThatThrownBy(() -> ACCT.withKeys(many))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "lock 'acct' names 65 distinct keys; one call may lock at most 64"
                + " (LockProvider.MAX_KEYS_PER_CALL)");
    assertThat(provider.calls).isEmpty();

    List<String> sixtyFour = new ArrayList<>(many.subList(0, 64));
    sixtyFour.add("k0"); // duplicates collapse: 64 distinct keys
    assertThat(call(locksmith, new Jobs(), "each", sixtyFour)).isEqualTo("ran");
    assertThat(provider.calls.get(0)).isEqualTo("tryAcquireAll 64");
    assertThat(locksmith.run(ACCT.withKeys(sixtyFour), () -> {})).isTrue();
    assertThat(fixture.held()).isEmpty();
  }

  /**
   * The calls a set of three makes of {@link #secondGrantLateAndNotRenewed}: taken key by key, the
   * late grant's renewal refused, the grants released in reverse order.
   */
  private static final List<String> SET_TAKEN_THEN_RELEASED =
      List.of(
          "tryAcquire", "tryAcquire", "tryAcquire", "renew", "release 1", "release 3", "release 2");

  /**
   * A provider whose second grant comes with no time left of its ttl, and which refuses to renew
   * it.
   */
  private static ScriptedProvider secondGrantLateAndNotRenewed(VirtualTicker ticker) {
    ScriptedProvider scripted = new ScriptedProvider(ticker);
    scripted.grantShapes.add(g -> g);
    scripted.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read()));
    scripted.renewAnswers.add(false);
    return scripted;
  }

  @Test
  void aLateGrantInTheSetThatCannotBeRenewedReleasesTheSetAndFailsATry() {
    VirtualTicker ticker = new VirtualTicker();
    ScriptedProvider scripted = secondGrantLateAndNotRenewed(ticker);
    RecordingListener seen = new RecordingListener();
    try (Locksmith engine =
        Locksmith.builder().defaultProvider(scripted).ticker(ticker).listener(seen).build()) {
      assertThatThrownBy(
              () -> engine.tryAcquire(ACCT.withKeys("c", "b", "a").withTtl(Duration.ofSeconds(2))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining(
              "Lock 'acct:b' was not acquired: it was granted with 0 ms of its 2s");

      // The grants not used are released off the caller's thread, in reverse order.
      await().atMost(Duration.ofSeconds(2)).until(() -> scripted.calls.contains("release 2"));
      assertThat(scripted.calls).containsExactlyElementsOf(SET_TAKEN_THEN_RELEASED);
      assertThat(seen.events)
          .containsSubsequence("acquired acct:a", "released acct:a")
          .anyMatch(e -> e.startsWith("error acct:b Lock 'acct:b' was not acquired"))
          .noneMatch(e -> e.contains("acct:c"));
    }
  }

  @Test
  void aLateGrantInTheSetThatCannotBeRenewedMakesAWaitTakeTheKeysOneByOne() {
    VirtualTicker ticker = new VirtualTicker();
    ScriptedProvider scripted = secondGrantLateAndNotRenewed(ticker);
    try (Locksmith engine = Locksmith.builder().defaultProvider(scripted).ticker(ticker).build()) {
      try (Lease lease =
          engine.acquire(ACCT.withKeys("c", "b", "a").withTtl(Duration.ofSeconds(2)))) {
        assertThat(lease.leases()).extracting(Lease::fencingToken).containsExactly(4L, 5L, 6L);
        assertThat(lease.isValid()).isTrue();
      }
      assertThat(scripted.calls)
          .startsWith(
              Stream.concat(
                      SET_TAKEN_THEN_RELEASED.stream(), Stream.of("acquire", "acquire", "acquire"))
                  .toArray(String[]::new));
    }
  }

  @Test
  void aFailingSetCallFailsTheCallOpensTheCircuitAndHoldsNothing() {
    LockProvider failing =
        answeringSets(
            requests -> {
              throw new LockProviderException("store unreachable");
            });
    RecordingListener seen = new RecordingListener();
    // Probed at start-up on this thread: a background start-up probe answering after the failure
    // would close the circuit again.
    try (Locksmith engine =
        Locksmith.builder()
            .defaultProvider(failing)
            .listener(seen)
            .requireProvidersAtStartup(true)
            .build()) {
      assertThatThrownBy(() -> engine.tryAcquire(ACCT.withKeys("b", "a")))
          .isInstanceOf(LockProviderException.class)
          .hasMessage("store unreachable");
      assertThat(seen.events).containsExactly("error acct:a store unreachable");
      assertThat(engine.health()).extracting(ProviderHealth::up).containsExactly(false);
      assertThatThrownBy(() -> engine.tryAcquire(ACCT.withKeys("b", "a")))
          .isInstanceOf(ProviderDownException.class)
          .hasMessageContaining("Lock 'acct:a', 'acct:b' not acquired");
    }
    assertThat(fixture.held()).isEmpty();
  }

  @Test
  void aProviderAnsweringTheWrongNumberOfGrantsFailsTheCallAndHoldsNothing() {
    LockProvider broken =
        answeringSets(
            requests -> memory.tryAcquireAll(requests).map(grants -> grants.subList(0, 1)));
    try (Locksmith engine = Locksmith.builder().defaultProvider(broken).build()) {
      assertThatThrownBy(() -> engine.acquire(ACCT.withKeys("b", "a")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "Lock provider default answered 1 grants for the 2 locks ['acct:a', 'acct:b'] it was"
                  + " asked for at once");
      // The grant it did answer is released off the caller's thread; the one it kept quiet about
      // ends by its ttl.
      await().atMost(Duration.ofSeconds(5)).until(() -> fixture.held().equals(List.of("acct:b")));
    }
  }
}
