package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Several locks taken in one call ({@link LockProvider#tryAcquireAll}): all or none, one grant per
 * lock in request order, each with its own fencing token, and at most {@link
 * LockProvider#MAX_KEYS_PER_CALL} locks per call.
 */
public interface SeveralLocksContract extends ContractFixture {

  /** Requests for {@code ids}, each with its own owner token, for 30 s. */
  private static List<LockRequest> requests(List<String> ids) {
    return ids.stream().map(id -> LockRequest.of(id, Duration.ofSeconds(30))).toList();
  }

  /** Three lock ids unique to this test, in lock order. */
  private List<String> threeIds(String name) {
    return List.of(lockId(name + ":a"), lockId(name + ":b"), lockId(name + ":c"));
  }

  /**
   * Free locks are all granted, in request order with positive tokens, and each is then held: its
   * status shows a holder with the grant's token, and another client cannot take it.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void freeLocksAreAllGrantedInRequestOrderAndHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    List<String> ids = threeIds("all-free");
    List<LockRequest> requests = requests(ids);

    List<LeaseGrant> grants = a.tryAcquireAll(requests).orElseThrow();

    assertThat(grants).extracting(LeaseGrant::lockId).containsExactlyElementsOf(ids);
    for (int i = 0; i < grants.size(); i++) {
      LeaseGrant grant = grants.get(i);
      assertThat(grant.ownerToken()).isEqualTo(requests.get(i).ownerToken());
      assertThat(grant.fencingToken()).as("token of %s", grant.lockId()).isPositive();
      assertThat(grant.expired()).as("%s expired", grant.lockId()).isFalse();
      b.status(grant.lockId())
          .currentHolder()
          .ifPresent(
              holder ->
                  assertThat(holder.fencingToken())
                      .as("status of %s", grant.lockId())
                      .isEqualTo(grant.fencingToken()));
      assertThat(b.tryAcquire(LockRequest.of(grant.lockId(), Duration.ofSeconds(30))))
          .as("another client's try of %s", grant.lockId())
          .isEmpty();
    }
    for (int i = grants.size() - 1; i >= 0; i--) {
      assertThat(a.release(grants.get(i))).as("release of %s", ids.get(i)).isTrue();
    }
  }

  /**
   * When one lock of the set is held by another client, nothing is granted and none of the others
   * is held afterwards: a third client can take each of them.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void oneBusyLockGrantsNoneAndHoldsNone() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    LockProvider c = client();
    for (int busy = 0; busy < 3; busy++) {
      List<String> ids = threeIds("one-busy-" + busy);
      LeaseGrant other = hold(b, ids.get(busy));

      assertThat(a.tryAcquireAll(requests(ids))).as("with %s busy", ids.get(busy)).isEmpty();

      for (String id : ids) {
        if (id.equals(ids.get(busy))) {
          continue;
        }
        holdAndRelease(c, id);
      }
      assertThat(b.release(other)).isTrue();
    }
  }

  /**
   * A later grant of each lock of a set has a higher fencing token than the set's grant.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void aLaterGrantOfEachLockHasAHigherToken() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    List<String> ids = threeIds("later-token");
    List<LeaseGrant> first = a.tryAcquireAll(requests(ids)).orElseThrow();
    for (LeaseGrant grant : first) {
      assertThat(a.release(grant)).isTrue();
    }
    List<LeaseGrant> second = b.tryAcquireAll(requests(ids)).orElseThrow();
    for (int i = 0; i < ids.size(); i++) {
      assertThat(second.get(i).fencingToken())
          .as("second token of %s", ids.get(i))
          .isGreaterThan(first.get(i).fencingToken());
      assertThat(b.release(second.get(i))).isTrue();
      LeaseGrant third = hold(a, ids.get(i));
      assertThat(third.fencingToken())
          .as("third token of %s", ids.get(i))
          .isGreaterThan(second.get(i).fencingToken());
      assertThat(a.release(third)).isTrue();
    }
  }

  /**
   * Two clients racing for overlapping sets ({@code a, b} and {@code b, c}) never hold a lock at
   * once, and never block each other for good.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void overlappingSetsRacingNeverOverlap() throws Exception {
    List<String> ids = threeIds("race");
    List<List<String>> sets = List.of(ids.subList(0, 2), ids.subList(1, 3));
    Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    ids.forEach(id -> inside.put(id, new AtomicInteger()));
    List<String> overlaps = new CopyOnWriteArrayList<>();
    List<Future<Integer>> parties = new ArrayList<>();
    for (List<String> set : sets) {
      LockProvider client = client();
      parties.add(
          pool()
              .submit(
                  () -> {
                    int won = 0;
                    for (int round = 0; round < 100; round++) {
                      Optional<List<LeaseGrant>> grants = client.tryAcquireAll(requests(set));
                      if (grants.isEmpty()) {
                        continue;
                      }
                      won++;
                      for (String id : set) {
                        if (Objects.requireNonNull(inside.get(id)).incrementAndGet() != 1) {
                          overlaps.add(id + " in round " + round);
                        }
                      }
                      // Held a while, so that a set granted to the other party meanwhile is seen.
                      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                      for (String id : set) {
                        Objects.requireNonNull(inside.get(id)).decrementAndGet();
                      }
                      for (LeaseGrant grant : grants.get()) {
                        client.release(grant);
                      }
                    }
                    return won;
                  }));
    }
    int won = 0;
    for (Future<Integer> party : parties) {
      won += party.get(60, TimeUnit.SECONDS);
    }
    assertThat(overlaps).isEmpty();
    assertThat(won).as("sets won").isPositive();
    LockProvider other = client();
    for (String id : ids) {
      holdAndRelease(other, id);
    }
  }

  /**
   * Releasing the grants of a set frees every lock of it.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void releasingTheGrantsFreesEveryLock() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    List<String> ids = threeIds("release-all");
    for (int round = 0; round < 3; round++) {
      List<LeaseGrant> grants = a.tryAcquireAll(requests(ids)).orElseThrow();
      for (int i = grants.size() - 1; i >= 0; i--) {
        assertThat(a.release(grants.get(i))).isTrue();
        assertThat(a.release(grants.get(i))).as("second release").isFalse();
      }
      List<LeaseGrant> other = b.tryAcquireAll(requests(ids)).orElseThrow();
      for (LeaseGrant grant : other) {
        assertThat(b.release(grant)).isTrue();
      }
    }
  }

  /**
   * An empty set, a lock id named twice and more than {@link LockProvider#MAX_KEYS_PER_CALL} locks
   * are refused with {@link IllegalArgumentException}, and nothing is held after them.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void anEmptySetADuplicateOrTooManyLocksAreRefused() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    assertThatThrownBy(() -> a.tryAcquireAll(List.of()))
        .isInstanceOf(IllegalArgumentException.class);

    String twice = lockId("twice");
    String single = lockId("twice-other");
    assertThatThrownBy(
            () ->
                a.tryAcquireAll(
                    List.of(
                        LockRequest.of(twice, Duration.ofSeconds(30)),
                        LockRequest.of(single, Duration.ofSeconds(30)),
                        LockRequest.of(twice, Duration.ofSeconds(30)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(twice);

    List<String> many = new ArrayList<>();
    for (int i = 0; i <= LockProvider.MAX_KEYS_PER_CALL; i++) {
      many.add(lockId(String.format("many:%02d", i)));
    }
    assertThatThrownBy(() -> a.tryAcquireAll(requests(many)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(LockProvider.MAX_KEYS_PER_CALL));

    for (String id : List.of(twice, single, many.get(0), many.get(many.size() - 1))) {
      Optional<LeaseGrant> taken = b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)));
      assertThat(taken).as("%s is free", id).isPresent();
      assertThat(b.release(taken.get())).isTrue();
    }
  }

  /**
   * A set of {@link LockProvider#MAX_KEYS_PER_CALL} locks is granted whole.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void theLargestSetIsGrantedWhole() throws Exception {
    LockProvider a = client();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < LockProvider.MAX_KEYS_PER_CALL; i++) {
      ids.add(lockId(String.format("largest:%02d", i)));
    }
    List<LeaseGrant> grants = a.tryAcquireAll(requests(ids)).orElseThrow();
    assertThat(grants).extracting(LeaseGrant::lockId).containsExactlyElementsOf(ids);
    for (int i = grants.size() - 1; i >= 0; i--) {
      assertThat(a.release(grants.get(i))).isTrue();
    }
  }
}
