package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.MinHoldChecks;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lease shortened to its minimum hold (a scheduled job's "hold at least this long") belongs to no
 * connection: it outlives its client's deliberate close and a connection cut hard, so a rolling
 * restart of the node that ran the job does not let another node run it again at once. Leases of
 * running work still end at once when their client closes the connection.
 */
class DetachedLeaseTest {
  private static final Duration MIN_HOLD = Duration.ofSeconds(2);
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void aMinHoldLeaseOutlivesItsClientsDeliberateClose() throws Exception {
    LockProvider holder = LockProviders.create(server.url());
    // Taken before the acquisition, which is when minHold starts: the lock must not be free
    // before minHold has passed since then (a clock read after acquire returns can be late).
    long grantedAt = System.nanoTime();
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(holder).build()) {
      Lease lease = locksmith.acquire(jobOptions("detached-close"));
      lease.close(); // the job is done; the lease is shortened to end at its minimum hold
    }
    holder.close();
    assertHeldUntilTheMinHoldEnds("detached-close", grantedAt);
  }

  @Test
  void aMinHoldLeaseOutlivesAConnectionCutHard() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider holder =
            LockProviders.create(RunningServer.url(proxy, "?request-timeout=5s"));
        Locksmith locksmith = Locksmith.builder().defaultProvider(holder).build()) {
      long grantedAt = System.nanoTime(); // before the acquisition: see above
      Lease lease = locksmith.acquire(jobOptions("detached-reset"));
      lease.close();
      proxy.resetAll(); // as a crashed host or a dropped network path would
      assertHeldUntilTheMinHoldEnds("detached-reset", grantedAt);
    }
  }

  @Test
  void aLeaseOfRunningWorkEndsAtOnceWhenItsClientClosesTheConnection() throws Exception {
    try (LockProvider other = LockProviders.create(server.url())) {
      LockProvider holder = LockProviders.create(server.url());
      Locksmith locksmith = Locksmith.builder().defaultProvider(holder).build();
      Lease running = locksmith.acquire(jobOptions("running-work"));
      assertThat(running.isValid()).isTrue();
      holder.close(); // the method has not returned: its lease goes with the connection
      await().atMost(Duration.ofSeconds(1)).until(() -> !running.isValid());
      // Free at once (when the server has seen the connection close), not after minHold or ttl.
      Optional<LeaseGrant> next =
          await()
              .atMost(Duration.ofSeconds(1))
              .until(
                  () -> other.tryAcquire(LockRequest.of("running-work", Duration.ofSeconds(10))),
                  Optional::isPresent);
      other.release(next.orElseThrow());
      locksmith.close();
    }
  }

  @Test
  void aLeaseRenewedWithItsOwnTtlStaysTiedToTheConnection() throws Exception {
    try (LockProvider other = LockProviders.create(server.url())) {
      LockProvider holder = LockProviders.create(server.url());
      LeaseGrant grant =
          holder
              .tryAcquire(LockRequest.of("renewed-same-ttl", Duration.ofSeconds(30)))
              .orElseThrow();
      assertThat(holder.renew(grant, Duration.ofSeconds(30))).isPresent();
      holder.close();
      await()
          .atMost(Duration.ofSeconds(1))
          .until(() -> other.status("renewed-same-ttl").currentHolder().isEmpty());
    }
  }

  private static LockOptions jobOptions(String id) {
    return LockOptions.named(id).withTtl(Duration.ofSeconds(30)).withMinHold(MIN_HOLD);
  }

  /**
   * Nobody gets the lock before the minimum hold has passed since {@code grantedAt} (read just
   * before the acquisition); then anyone can.
   */
  private static void assertHeldUntilTheMinHoldEnds(String id, long grantedAt) throws Exception {
    try (LockProvider other = LockProviders.create(server.url())) {
      if (MinHoldChecks.freeOnlyAfterMinHold(
          other, id, grantedAt, MIN_HOLD, "the lock was free again before its minHold ended")) {
        return;
      }
      Optional<LeaseGrant> after =
          other.acquire(LockRequest.of(id, Duration.ofSeconds(5)), MIN_HOLD.plusSeconds(3));
      assertThat(after).as("free once the minimum hold ended").isPresent();
      assertThat(Duration.ofNanos(System.nanoTime() - grantedAt)).isGreaterThanOrEqualTo(MIN_HOLD);
      other.release(after.get());
    }
  }
}
