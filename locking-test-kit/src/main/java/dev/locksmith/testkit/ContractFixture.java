package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * What the capability contracts ({@link BasicLeaseContract}, {@link WaitingContract}, ...) use from
 * the test instance: clients onto the provider's store, engines over them, a thread pool and unique
 * lock ids, each closed after the test. {@link LockProviderContract} implements it; a provider's
 * conformance test extends that class and implements the contracts for what the provider can do.
 */
public interface ContractFixture {

  /**
   * A new client onto the shared lock store, closed after the test.
   *
   * @return a new client onto the shared lock store, closed after the test
   * @throws Exception when a provider call fails
   */
  LockProvider client() throws Exception;

  /**
   * A new client onto the shared lock store that the test closes itself.
   *
   * @return a new client onto the shared lock store that the test closes itself
   * @throws Exception when a provider call fails
   */
  LockProvider unmanagedClient() throws Exception;

  /**
   * A new client whose path to the store the test can freeze or break, closed after the test.
   *
   * @return a new client whose path to the store the test can freeze or break, closed after the
   *     test
   * @throws Exception when a provider call fails
   */
  FaultyPath faultyClient() throws Exception;

  /**
   * An engine over {@code provider}, closed after the test.
   *
   * @param provider the provider under test
   * @return an engine over it
   */
  Locksmith engine(LockProvider provider);

  /**
   * An engine over {@code provider} that reports to {@code listener}, closed after the test before
   * the faulty paths and other engines.
   *
   * @param provider the provider under test
   * @param listener told of the engine's events
   * @return an engine over it
   */
  Locksmith engine(LockProvider provider, LockListener listener);

  /**
   * A lock id unique to this test run, so that shared stores are not disturbed.
   *
   * @param name a name unique within the test
   * @return the lock id
   */
  String lockId(String name);

  /**
   * A thread pool for the test's other parties, shut down after the test.
   *
   * @return a thread pool for the test's other parties, shut down after the test
   */
  ExecutorService pool();

  /**
   * The provider's timings: shortest TTL, expiry grace, hand-off bound.
   *
   * @return the provider's timings: shortest TTL, expiry grace, hand-off bound
   */
  ContractTimings timings();

  /**
   * Polls with {@code taker} until it gets {@code id}, at most one short TTL and grace plus 5 s.
   *
   * @param taker the client that polls
   * @param id the lock id
   * @return the grant
   */
  default LeaseGrant takeAfterExpiry(LockProvider taker, String id) {
    ContractTimings timings = timings();
    return takeWhenFree(
        taker,
        id,
        timings.shortTtl().plus(timings.expiryGrace()).plusSeconds(5),
        Duration.ofMillis(20));
  }

  /**
   * Waits until {@code other} can take and release {@code id}: within {@code ttl}, grace and 2 s.
   *
   * @param other the client that takes and releases
   * @param id the lock id
   * @param ttl the lease length that must have run out
   */
  default void awaitFreeFor(LockProvider other, String id, Duration ttl) {
    await()
        .atMost(ttl.plus(timings().expiryGrace()).plusSeconds(2))
        .until(
            () -> {
              Optional<LeaseGrant> taken =
                  other.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5)));
              taken.ifPresent(other::release);
              return taken.isPresent();
            });
  }

  /**
   * Takes {@code id} through {@code taker} once another client's release has landed: an engine
   * sends a release off its caller's path, so a call that returned may still have its release in
   * flight on its own connection. Polls for at most 5 s (any provider's call bound here).
   *
   * @param taker the client that takes the lock
   * @param id the lock id
   * @return the grant
   */
  default LeaseGrant takeOnceReleased(LockProvider taker, String id) {
    return takeWhenFree(taker, id, Duration.ofSeconds(5), Duration.ofMillis(5));
  }

  /** Tries {@code id} through {@code taker} every {@code poll} until it is granted for 30 s. */
  private static LeaseGrant takeWhenFree(
      LockProvider taker, String id, Duration atMost, Duration poll) {
    LeaseGrant[] taken = new LeaseGrant[1];
    await()
        .atMost(atMost)
        .pollInterval(poll)
        .until(
            () -> {
              Optional<LeaseGrant> grant =
                  taker.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)));
              grant.ifPresent(g -> taken[0] = g);
              return grant.isPresent();
            });
    return taken[0];
  }

  /**
   * Takes {@code id} through {@code provider} for 30 s; it must be free.
   *
   * @param provider the client that takes the lock
   * @param id the lock id
   * @return the grant
   */
  default LeaseGrant hold(LockProvider provider, String id) {
    return provider.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).orElseThrow();
  }

  /**
   * Takes {@code id} through {@code provider} and releases it: it must be free, and the release
   * must succeed.
   *
   * @param provider the client that takes the lock
   * @param id the lock id
   */
  default void holdAndRelease(LockProvider provider, String id) {
    LeaseGrant taken = hold(provider, id);
    assertThat(provider.release(taken)).as("released %s", id).isTrue();
  }

  /**
   * Waits until a waiter is queued on {@code id}, where the provider can tell.
   *
   * @param provider the client the waiter waits on
   * @param id the lock id
   */
  default void awaitWaiting(LockProvider provider, String id) {
    if (provider.status(id).waiters() >= 0) {
      await().atMost(Duration.ofSeconds(10)).until(() -> provider.status(id).waiters() > 0);
    }
  }

  /**
   * Waits until {@code waiter} waits for {@code id}: queued, where the provider can tell, else seen
   * in a timed wait for a while (a provider that cannot count its waiters waits for the lock with a
   * timeout, or polls with timed pauses; the steps before its first attempt, such as connecting or
   * subscribing, are brief or untimed), so that what the test does next meets a waiting waiter, not
   * one still on its way.
   *
   * @param provider the client the waiter waits on
   * @param id the lock id
   * @param waiter the thread that waits
   */
  default void awaitWaiting(LockProvider provider, String id, Thread waiter) {
    if (provider.status(id).waiters() >= 0) {
      awaitWaiting(provider, id);
      return;
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(2))
        .during(Duration.ofMillis(30))
        .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
  }
}
