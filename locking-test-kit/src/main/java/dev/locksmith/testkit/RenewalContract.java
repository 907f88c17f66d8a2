package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Keeping a lease: renewal from any thread, the engine's renewal, leases shortened to their minimum
 * hold, and a reentered call's pending stage.
 */
public interface RenewalContract extends ContractFixture {

  /**
   * Renewal from threads other than the acquiring one keeps the lease and its token.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void renewExtendsTheLeaseFromAnyThread() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("renew-thread");
    // Connected before the lease is taken: a new client's first call (a ZooKeeper session being
    // set up) can take longer than a short ttl leaves between two renewals.
    b.status(id);
    LeaseGrant held =
        pool()
            .submit(() -> a.tryAcquire(LockRequest.of(id, timings().shortTtl())).orElseThrow())
            .get();
    long until = System.nanoTime() + timings().shortTtl().multipliedBy(3).toNanos();
    LeaseGrant current = held;
    while (System.nanoTime() < until) {
      LeaseGrant toRenew = current;
      current =
          pool()
              .submit(() -> a.renew(toRenew, timings().shortTtl()).orElseThrow())
              .get(10, TimeUnit.SECONDS);
      assertThat(current.fencingToken()).isEqualTo(held.fencingToken());
      assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
      LockSupport.parkNanos(timings().shortTtl().toNanos() / 4);
    }
    LeaseGrant last = current;
    assertThat(pool().submit(() -> a.release(last)).get()).isTrue();
  }

  /**
   * The engine's renewal keeps the lock for several TTLs with one fencing token.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void engineRenewalKeepsTheLockPastItsTtl() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("engine-renew");
    Locksmith locksmith = engine(a);
    long[] tokens = new long[2];
    locksmith.run(
        LockOptions.named(id).withTtl(timings().shortTtl()),
        () -> {
          tokens[0] = dev.locksmith.core.Locks.current().fencingToken();
          long end = System.nanoTime() + timings().shortTtl().multipliedBy(4).toNanos();
          while (System.nanoTime() < end) {
            assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
            LockSupport.parkNanos(timings().shortTtl().toNanos() / 5);
          }
          dev.locksmith.core.Locks.current().checkValid();
          tokens[1] = dev.locksmith.core.Locks.current().fencingToken();
        });
    assertThat(tokens[1]).isEqualTo(tokens[0]);
    assertThat(takeOnceReleased(b, id).fencingToken()).isGreaterThan(tokens[0]);
  }

  /**
   * A call shorter than its {@code minHold} keeps the lock until the minimum hold has passed.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void minHoldKeepsTheLockAfterAnEarlyRelease() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    String id = lockId("min-hold");
    Duration minHold = timings().shortTtl();
    Locksmith engine = engine(a);
    // Timed from just before the take: the engine's start-up probe must not count.
    long start = System.nanoTime();
    boolean ran =
        engine.run(LockOptions.named(id).withMinHold(minHold).withOnBusy(OnBusy.FAIL), () -> {});
    assertThat(ran).isTrue();
    assertThat(b.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))).isEmpty();
    takeAfterExpiry(b, id);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(minHold);
  }

  /**
   * A lease shortened to its {@code minHold} is not freed early by closing its client.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void leaseShortenedToItsMinHoldOutlivesItsClientsClose() throws Exception {
    minHoldOutlivesTheClientsClose(
        "detached-min-hold", Duration.ofSeconds(30), Duration.ofSeconds(2));
  }

  /**
   * A lease whose {@code minHold} is longer than its {@code ttl} (renewed while held, then
   * lengthened to end at the hold) is not freed early by closing its client either.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void leaseLengthenedToItsMinHoldOutlivesItsClientsClose() throws Exception {
    Duration ttl = timings().shortTtl();
    minHoldOutlivesTheClientsClose("lengthened-min-hold", ttl, ttl.multipliedBy(4));
  }

  private void minHoldOutlivesTheClientsClose(String name, Duration ttl, Duration minHold)
      throws Exception {
    LockProvider holderClient = unmanagedClient(); // closed by the test, not by the suite
    LockProvider other = client();
    String id = lockId(name);
    long grantedAt;
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(holderClient).build()) {
      grantedAt = System.nanoTime(); // no later than the grant the minimum hold counts from
      Lease lease = locksmith.acquire(LockOptions.named(id).withTtl(ttl).withMinHold(minHold));
      lease.close(); // the work is done; the lease is renewed to end at minHold
    }
    holderClient.close();
    MinHoldChecks.awaitFreeOnlyAfterMinHold(
        other,
        id,
        grantedAt,
        minHold,
        timings().expiryGrace().plusSeconds(2),
        "the lock was free again before its minHold ended, after its client closed");
  }

  /**
   * A stage returned by a reentered annotated call keeps the lock until it completes.
   *
   * @throws Throwable when a call fails
   */
  @Test
  default void reenteredCompletionStageKeepsTheLockUntilItCompletes() throws Throwable {
    LockProvider provider = client();
    LockProvider other = client();
    Locksmith locksmith = engine(provider);
    ReentrantCalls calls = new ReentrantCalls();
    String key = lockId("reentrant");
    locksmith.invoke(Invocations.of(calls, "outer", key, locksmith));
    String id = "contract-reentrant:" + key;
    assertThat(other.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5))))
        .as("another owner while the inner call's stage is pending")
        .isEmpty();
    calls.pending.complete("done");
    other.release(takeOnceReleased(other, id)); // another owner once the stage completed
  }
}
