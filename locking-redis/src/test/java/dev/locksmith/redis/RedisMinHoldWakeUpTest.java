package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A waiter follows a lease shortened to its minHold by push, not by the holder's old TTL. */
class RedisMinHoldWakeUpTest {
  private final String url = RedisTests.sharedUrl();

  @Test
  void aWaiterIsGrantedWhenTheMinHoldEndsNotWhenTheOldTtlWouldHave() throws Exception {
    String id = RedisTests.lockId();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (LockProvider holderClient = LockProviders.create(url);
        LockProvider waiterClient = LockProviders.create(url);
        Locksmith holder = Locksmith.builder().defaultProvider(holderClient).build()) {
      // Read before the grant: the minimum hold counts from it, a moment before acquire returns.
      long askedAt = System.nanoTime();
      Lease lease =
          holder.acquire(
              LockOptions.named(id)
                  .withTtl(Duration.ofSeconds(30))
                  .withMinHold(Duration.ofMillis(1500)));
      Future<Optional<LeaseGrant>> waiter =
          pool.submit(
              () ->
                  waiterClient.acquire(
                      RedisTests.request(id, Duration.ofSeconds(5)), Duration.ofSeconds(20)));
      // Waiting on the 30 s TTL, subscribed: only the push of the shortening can end it early.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> ((RedisLockProvider) waiterClient).subscribedChannels() == 1);
      lease.close(); // shortened to end 1.5 s after the grant
      Optional<LeaseGrant> granted = waiter.get(10, TimeUnit.SECONDS);
      Duration after = Duration.ofNanos(System.nanoTime() - askedAt);
      assertThat(granted).isPresent();
      // Not before the minimum hold (Redis expires to the millisecond), long before the 30 s TTL.
      assertThat(after).isBetween(Duration.ofMillis(1490), Duration.ofMillis(4000));
      waiterClient.release(granted.get());
    } finally {
      pool.shutdownNow();
    }
  }
}
