package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockLostException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The engine's timing rules against the provider on a misbehaving path, from {@link
 * ContractFixture#faultyClient()}: a network provider overrides {@link
 * LockProviderContract#newFaultyClient()} to put a {@link FaultProxy} in between; the default
 * stalls a client's answers.
 */
public interface FaultContract extends ContractFixture {

  /**
   * With replies frozen, a hung renewal is reported lost at the lease's deadline, never before, and
   * a late confirmation does not revive it.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void hungRenewalIsReportedLostAtTheDeadlineNotWhenTheCallGivesUp() throws Exception {
    FaultyPath path = faultyClient();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl = renewableTtl();
    String id = lockId("hung-renewal");
    Lease lease = locksmith.acquire(LockOptions.named(id).withTtl(ttl));
    path.freezeReplies();
    long frozenAt = System.nanoTime();
    long knownDeadline = frozenAt + lease.timeLeft().toNanos();

    await().atMost(ttl.multipliedBy(3)).until(() -> !losses.lost.isEmpty());
    // Never before the last deadline the client knew of, and at most a tick or so after the
    // latest deadline any renewal sent before the freeze could have confirmed.
    assertThat(losses.lostAt - knownDeadline)
        .isGreaterThanOrEqualTo(-TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(Duration.ofNanos(losses.lostAt - (frozenAt + ttl.toNanos())))
        .as("from the deadline to the lost event")
        .isLessThan(Duration.ofMillis(250));
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);

    path.thaw();
    awaitFreeFor(client(), id, ttl);
    assertThat(lease.isValid()).as("a renewal confirmed late does not revive it").isFalse();
    lease.close();
  }

  /**
   * Closing a lease lost while its path stays frozen returns at once: it waits neither for the hung
   * renewal nor for a release the store cannot answer, and the lock is free once the TTL has run
   * out.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void closingALeaseLostOnAFrozenPathDoesNotWaitForTheStore() throws Exception {
    FaultyPath path = faultyClient();
    Losses losses = new Losses();
    String id = lockId("close-lost-frozen");
    Duration ttl = renewableTtl();
    Lease lease = engine(path.provider(), losses).acquire(LockOptions.named(id).withTtl(ttl));
    path.freezeReplies();
    await().atMost(ttl.multipliedBy(3)).until(() -> !losses.lost.isEmpty());

    // Any client's request timeout is longer than this: a close that sends a call and waits for
    // its answer, or waits for the hung renewal, runs past it.
    Future<?> closing = pool().submit(lease::close);
    assertThat(closing)
        .as("close of a lost lease on a frozen path")
        .succeedsWithin(Duration.ofSeconds(1));
    path.thaw();
    awaitFreeFor(client(), id, ttl);
  }

  /**
   * A grant whose reply arrived after its lease ran out is never handed out; the new holder is
   * untouched.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void lateGrantIsRenewedOrRefusedNeverRunExpired() throws Exception {
    FaultyPath path = faultyClient();
    LockProvider other = client();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl = timings().shortTtl();
    String id = lockId("late-grant");
    // A client that has carried traffic before (scripts loaded, connections open).
    LeaseGrant warm =
        path.provider().tryAcquire(LockRequest.of(lockId("late-grant-warm-up"), ttl)).orElseThrow();
    path.provider().release(warm);
    path.freezeReplies();
    Future<Optional<Lease>> attempt =
        pool().submit(() -> locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl)));
    // The store granted it, then its lease ran out while the grant was on its way; another owner
    // takes the lock. The frozen client's grant lives one short ttl: look often enough to see it.
    await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(10))
        .until(() -> other.status(id).currentHolder().isPresent());
    LeaseGrant taker = takeAfterExpiry(other, id);
    path.thaw();

    Optional<Lease> result;
    try {
      result = attempt.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LockException.class);
      result = Optional.empty();
    }
    assertThat(result).as("a lease granted too late is never handed out").isEmpty();
    assertThat(Objects.requireNonNull(other.status(id).holder(), "a holder").fencingToken())
        .isEqualTo(taker.fencingToken());
    assertThat(other.renew(taker, ttl)).as("the new holder is untouched").isPresent();
    assertThat(other.release(taker)).isTrue();
  }

  /**
   * A lost acquire reply leaves no lock held beyond one TTL, or the client recovered a real lease.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void lostAcquireReplyLeavesNoGhostLockBeyondOneTtl() throws Exception {
    FaultyPath path = faultyClient();
    Locksmith locksmith = engine(path.provider(), new Losses());
    Duration ttl = timings().shortTtl();
    String id = lockId("lost-acquire-reply");
    path.loseNextReply();
    try {
      Optional<Lease> lease = locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl));
      // The client recovered its grant (a resend that found its own lease): a real lease.
      assertThat(lease).isPresent();
      assertThat(lease.get().isValid()).isTrue();
      lease.get().close();
    } catch (LockException e) {
      LoggerFactory.getLogger(getClass())
          .info("Acquire with a lost reply failed as expected: {}", e.getMessage());
    }
    awaitFreeFor(client(), id, ttl);
  }

  /**
   * A release whose reply was lost is not reported as a lost lease.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void lostReleaseReplyIsNotReportedAsALoss() throws Exception {
    FaultyPath path = faultyClient();
    Losses losses = new Losses();
    Locksmith locksmith = engine(path.provider(), losses);
    Duration ttl = Duration.ofSeconds(5);
    String id = lockId("lost-release-reply");
    Lease lease = locksmith.acquire(LockOptions.named(id).withTtl(ttl));
    path.loseNextReply();
    lease.close();
    // Its outcome known (an answer after a resend, a failure, or the deadline), the release is told
    // after any loss it shows.
    await()
        .atMost(ttl.plus(timings().expiryGrace()).plusSeconds(5))
        .until(() -> losses.released.contains(id));
    assertThat(losses.lost).as("a release whose reply was lost is not a lost lease").isEmpty();
    awaitFreeFor(client(), id, ttl);
    assertThat(losses.lost).isEmpty();
  }

  /** A TTL of 1 s or the provider's shortest, whichever is longer: renewed at least once. */
  private Duration renewableTtl() {
    Duration shortest = timings().shortTtl();
    return Duration.ofSeconds(1).compareTo(shortest) > 0 ? Duration.ofSeconds(1) : shortest;
  }
}
