package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A locked call's release sent through {@link LockProvider#releaseAsync}, without the caller
 * waiting for its answer: a later acquisition of the same lock through the same client is ordered
 * after it, closing the engine flushes it, and the lease counts as held until it is confirmed. A
 * provider that answers at once (the SPI's default) passes as well.
 */
public interface AsyncReleaseContract extends ContractFixture {

  /**
   * How many call-then-acquire rounds {@link #laterAcquireIsOrderedAfterAnInFlightRelease} runs.
   *
   * @return how many call-then-acquire rounds {@link #laterAcquireIsOrderedAfterAnInFlightRelease}
   *     runs
   */
  default int asyncReleaseRounds() {
    return 1_000;
  }

  /**
   * A call on a lock, then at once an acquisition of the same lock from another engine on the same
   * client: never busy, and fencing tokens rise.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void laterAcquireIsOrderedAfterAnInFlightRelease() throws Exception {
    LockProvider shared = client();
    Locksmith calls = engine(shared);
    Locksmith other = engine(shared);
    String id = lockId("release-order");
    LockOptions options = LockOptions.named(id).withTtl(Duration.ofSeconds(30));
    long last = Long.MIN_VALUE;
    for (int round = 0; round < asyncReleaseRounds(); round++) {
      long[] token = new long[1];
      assertThat(calls.run(options, () -> token[0] = Locks.current().fencingToken())).isTrue();
      assertThat(token[0]).as("the call's token in round %d", round).isGreaterThan(last);
      Optional<Lease> next = other.tryAcquire(options);
      assertThat(next).as("round %d: the lock right after the call's release", round).isPresent();
      try (Lease lease = next.get()) {
        assertThat(lease.fencingToken()).isGreaterThan(token[0]);
        last = lease.fencingToken();
      }
    }
  }

  /**
   * Closing the engine right after 20 calls waits for their releases: another client sees all free.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void closeFlushesPendingReleases() throws Exception {
    LockProvider client = client();
    Releases releases = new Releases();
    Locksmith locksmith = engine(client, releases);
    List<String> ids = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 20; i++) {
      String id = lockId("flush-" + i);
      ids.add(id);
      assertThat(locksmith.run(LockOptions.named(id).withTtl(Duration.ofSeconds(60)), () -> {}))
          .isTrue();
    }
    locksmith.close();
    assertThat(releases.released).hasSize(20);
    LockProvider second = client();
    for (String id : ids) {
      Optional<LeaseGrant> taken = second.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5)));
      assertThat(taken).as("%s is free once close() returned", id).isPresent();
      second.release(taken.get());
    }
  }

  /**
   * A release whose answer is held back keeps the lease counted as held: no released event, and
   * closing the engine waits, until the answer arrives.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void leaseCountsAsHeldUntilItsReleaseIsConfirmed() throws Exception {
    FaultyPath path = faultyClient();
    Releases releases = new Releases();
    Locksmith locksmith = engine(path.provider(), releases);
    String id = lockId("held-until-confirmed");
    // Warm the path up, so that the frozen reply is the release's.
    locksmith.run(LockOptions.named(lockId("held-until-confirmed-warm-up")), () -> {});
    await().atMost(Duration.ofSeconds(10)).until(() -> releases.released.size() == 1);

    CountDownLatch blockDone = new CountDownLatch(1);
    Future<Boolean> call =
        pool()
            .submit(
                () ->
                    locksmith.run(
                        LockOptions.named(id).withTtl(Duration.ofSeconds(30)),
                        () -> {
                          path.freezeReplies();
                          blockDone.countDown();
                        }));
    assertThat(blockDone.await(30, TimeUnit.SECONDS)).isTrue();
    CountDownLatch closed = new CountDownLatch(1);
    pool()
        .submit(
            () -> {
              locksmith.close();
              closed.countDown();
            });
    try {
      assertThat(closed.await(500, TimeUnit.MILLISECONDS))
          .as("close() waits while the release is unconfirmed")
          .isFalse();
      assertThat(releases.released).as("no released event before the answer").hasSize(1);
    } finally {
      path.thaw();
    }
    assertThat(closed.await(30, TimeUnit.SECONDS)).as("close() returns once confirmed").isTrue();
    assertThat(call.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(releases.released).containsExactly(lockIdOf(releases, 0), id);
  }

  private static String lockIdOf(Releases releases, int index) {
    return releases.released.get(index);
  }

  /** Records the lock id of every released event. */
  final class Releases implements LockListener {
    final List<String> released = new CopyOnWriteArrayList<>();

    @Override
    public void released(LockEvent event, Duration held) {
      released.add(event.lockId());
    }
  }
}
