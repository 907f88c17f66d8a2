package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Acquire, release, owner checks, expiry and status: what every provider has. */
public interface BasicLeaseContract extends ContractFixture {

  /**
   * A held lock is refused to another client and to the holder's own client.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void secondAcquireIsRefusedWhileHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("exclusive");
    LeaseGrant held = hold(a, id);
    assertThat(held.lockId()).isEqualTo(id);
    assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
    assertThat(a.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))))
        .as("another acquisition through the same client")
        .isEmpty();
    assertThat(a.release(held)).isTrue();
  }

  /**
   * Owner tokens are compared exactly: a token that differs from the holder's only in case or by a
   * trailing space is another owner's, refused while the lock is held (or refused as a token the
   * store cannot keep, with an {@link IllegalArgumentException}). A store that compared them as
   * text under a case-insensitive, space-padding collation let a second owner take over a live
   * lease, and its holder learnt only at its next renewal.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void anOwnerTokenDifferingOnlyInCaseOrTrailingSpaceIsAnotherOwner() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("token-case");
    String token = "token-" + OwnerTokens.newToken();
    LeaseGrant held =
        a.tryAcquire(new LockRequest(id, token, Duration.ofSeconds(30), "a")).orElseThrow();
    for (String other : List.of(token.toUpperCase(Locale.ROOT), token + " ")) {
      LockRequest take = new LockRequest(id, other, Duration.ofSeconds(30), "b");
      try {
        assertThat(b.tryAcquire(take))
            .as("a take with the token '%s' while '%s' holds the lock", other, token)
            .isEmpty();
      } catch (IllegalArgumentException refusedToken) {
        // A store may refuse a token it cannot keep apart from others; it took nothing.
      }
    }
    Optional<LeaseGrant> renewed = a.renew(held, Duration.ofSeconds(30));
    assertThat(renewed).as("the holder's renewal").isPresent();
    assertThat(a.release(renewed.orElseThrow())).isTrue();
  }

  /**
   * A release frees the lock once; a second release of the same grant reports {@code false}.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void releaseFreesTheLockOnceAndOnlyOnce() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("release");
    for (int round = 0; round < 10; round++) {
      LeaseGrant held = hold(a, id);
      assertThat(a.release(held)).isTrue();
      assertThat(a.release(held)).as("second release").isFalse();
      holdAndRelease(b, id);
    }
  }

  /**
   * Distinct lock ids, odd characters included, are held independently.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void distinctKeysAreIndependent() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    LeaseGrant one =
        a.tryAcquire(LockRequest.of(lockId("key:1"), Duration.ofSeconds(30))).orElseThrow();
    LeaseGrant two =
        b.tryAcquire(LockRequest.of(lockId("key:2"), Duration.ofSeconds(30))).orElseThrow();
    LeaseGrant odd =
        b.tryAcquire(LockRequest.of(lockId("key:../1 with spaces/ü"), Duration.ofSeconds(30)))
            .orElseThrow();
    assertThat(a.release(one)).isTrue();
    assertThat(b.release(two)).isTrue();
    assertThat(b.release(odd)).isTrue();
  }

  /**
   * Lock ids that differ only in text UTF-8 cannot hold (a lone surrogate, as a key cut in the
   * middle of an emoji has, which an encoder turns into {@code ?}) are distinct locks, each held by
   * its own grant and reported under its own id.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void idsThatDifferOnlyInLoneSurrogatesAreDistinctLocks() throws Exception {
    LockProvider a = client();
    List<LeaseGrant> held = new ArrayList<>();
    for (String text : List.of("\uD800", "\uDBFF", "\uDC00", "?", "\uD83D\uDE00", "\uD83D?")) {
      String id = lockId("lone:" + text);
      held.add(
          a.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "refused, as if another id held it: lone:" + escapedText(text))));
      assertThat(a.status(id).currentHolder())
          .as("status of %s", id)
          .hasValueSatisfying(
              holder ->
                  assertThat(holder.fencingToken())
                      .isEqualTo(held.get(held.size() - 1).fencingToken()));
    }
    for (LeaseGrant grant : held) {
      assertThat(a.release(grant)).as("release of %s", grant.lockId()).isTrue();
    }
  }

  private static String escapedText(String text) {
    StringBuilder out = new StringBuilder();
    text.chars()
        .forEach(
            c -> out.append(c < 0x80 ? String.valueOf((char) c) : String.format("\\u%04X", c)));
    return out.toString();
  }

  /**
   * A take repeated with the owner token that holds the lock (a wait's later attempt, or a request
   * sent again after its reply was lost) is either refused or answered with the lease held (its
   * fencing token, or a later one when the store counts the repeat as a new take), and then the
   * store keeps that lease at least until the deadline it reports, counted from the repeat: a store
   * that kept the first take's expiry let another owner in while the repeat's lease still looked
   * valid.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void aTakeRepeatedByItsOwnerLastsOnTheStoreUntilItsOwnDeadline() throws Exception {
    LockProvider a = client();
    String id = lockId("repeated-take");
    LockRequest take = LockRequest.of(id, Duration.ofSeconds(4));
    LeaseGrant earlier = a.tryAcquire(take).orElseThrow();
    await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
    LeaseGrant again = a.tryAcquire(take).orElse(null);
    if (again == null) {
      assertThat(a.release(earlier)).isTrue();
      return;
    }
    Duration storeLeft = client().status(id).currentHolder().orElseThrow().timeLeft();
    assertThat(again.fencingToken())
        .as("the repeat's fencing token (the same lease's, or a new take's)")
        .isGreaterThanOrEqualTo(earlier.fencingToken());
    assertThat(storeLeft)
        .as("time left on the store against the repeated grant's own (%s)", again.timeLeft())
        .isGreaterThanOrEqualTo(again.timeLeft().minusMillis(100));
    assertThat(a.release(again)).isTrue();
  }

  /**
   * An abandoned lock is free again after its TTL, and not before.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void ttlFreesAnAbandonedLock() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("abandoned");
    long start = System.nanoTime();
    a.tryAcquire(LockRequest.of(id, timings().shortTtl())).orElseThrow();
    assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
    LeaseGrant taken = takeAfterExpiry(b, id);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the lock is not freed before its ttl")
        .isGreaterThanOrEqualTo(timings().shortTtl());
    assertThat(b.release(taken)).isTrue();
  }

  /**
   * A holder whose lease expired can neither renew nor release the next holder's lock.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void staleHolderCanNeitherRenewNorReleaseTheNewHoldersLock() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("stale");
    LeaseGrant stale = a.tryAcquire(LockRequest.of(id, timings().shortTtl())).orElseThrow();
    LeaseGrant fresh = takeAfterExpiry(b, id);
    assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());
    assertThat(a.renew(stale, Duration.ofSeconds(30))).as("stale renew").isEmpty();
    assertThat(a.release(stale)).as("stale release").isFalse();
    assertThat(client().tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))))
        .as("the new holder still holds")
        .isEmpty();
    assertThat(b.renew(fresh, Duration.ofSeconds(30))).isPresent();
    assertThat(b.release(fresh)).isTrue();
  }

  /**
   * Release and renew after expiry report the lease lost and leave the new holder alone.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void releaseAfterExpiryReportsLostAndChangesNothing() throws Exception {
    LockProvider a = client();
    String id = lockId("expired-release");
    LeaseGrant expired = a.tryAcquire(LockRequest.of(id, timings().shortTtl())).orElseThrow();
    LeaseGrant fresh = takeAfterExpiry(client(), id);
    assertThat(a.release(expired)).isFalse();
    assertThat(a.renew(expired, Duration.ofSeconds(1))).isEmpty();
    assertThat(client().tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
    assertThat(fresh.lockId()).isEqualTo(id);
  }

  /**
   * Status names the current holder's owner, token and time left.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void statusNamesTheHolderAndToken() throws Exception {
    LockProvider a = client();
    String id = lockId("status");
    assertThat(a.status(id).currentHolder()).isEmpty();
    LockRequest request = LockRequest.of(id, Duration.ofSeconds(30));
    LeaseGrant held = a.tryAcquire(request).orElseThrow();
    var holder = client().status(id).currentHolder().orElseThrow();
    assertThat(holder.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(holder.owner()).contains(request.owner());
    assertThat(holder.timeLeft()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
    a.release(held);
  }

  /**
   * A call on a thread whose interrupt flag is set (a cancelled task releasing its lock, a pool
   * shutting down) does what it does on any other thread and keeps the flag set; the client goes on
   * working for every thread. A provider that let the flag fail such a release, or close a shared
   * connection or file, left the lock held for its TTL and took its client down.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void callsOnAnInterruptedThreadWorkAndKeepTheInterrupt() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("interrupted");
    Duration ttl = Duration.ofSeconds(30);
    pool()
        .submit(
            () -> {
              Thread.currentThread().interrupt();
              try {
                LeaseGrant held = a.tryAcquire(LockRequest.of(id, ttl)).orElseThrow();
                assertThat(Thread.currentThread().isInterrupted()).as("after tryAcquire").isTrue();
                assertThat(a.status(id).currentHolder()).isPresent();
                LeaseGrant renewed = a.renew(held, ttl).orElseThrow();
                assertThat(a.release(renewed)).isTrue();
                LeaseGrant again = a.tryAcquire(LockRequest.of(id, ttl)).orElseThrow();
                assertThat(a.releaseAsync(again).toCompletableFuture().join()).isTrue();
                assertThat(Thread.currentThread().isInterrupted()).as("after the calls").isTrue();
              } finally {
                Thread.interrupted();
              }
              return null;
            })
        .get(60, TimeUnit.SECONDS);
    holdAndRelease(a, id);
    holdAndRelease(b, id);
  }
}
