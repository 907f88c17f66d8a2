package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A holder's release and the grant a waiting provider gets after it, timed from the release: the
 * hand-off that the PostgreSQL tests of woken waiters check; with the steps that lead to it.
 */
record HandOff(LeaseGrant grant, Duration took) {

  /** Starts {@code waiter} waiting on {@code pool}, up to {@code wait}, for {@code lockId}. */
  static Future<Optional<LeaseGrant>> startWaiting(
      ExecutorService pool, JdbcLockProvider waiter, String lockId, Duration ttl, Duration wait) {
    return pool.submit(() -> waiter.acquire(LockRequest.of(lockId, ttl), wait));
  }

  /** Whether {@code waiter} listens for notifications with one local waiter on {@code lockId}. */
  static boolean listening(JdbcLockProvider waiter, String lockId) {
    PgListener listener = waiter.listener();
    return listener != null && listener.listening() && waiter.localWaiters(lockId) == 1;
  }

  /**
   * Releases {@code held} through {@code holder}, asserting that it was still held, and waits up to
   * {@code within} for {@code waiting} to be granted.
   */
  static HandOff release(
      JdbcLockProvider holder,
      LeaseGrant held,
      Future<Optional<LeaseGrant>> waiting,
      Duration within)
      throws Exception {
    long releasedAt = System.nanoTime();
    assertThat(holder.release(held)).isTrue();
    LeaseGrant grant = waiting.get(within.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
    return new HandOff(grant, Duration.ofNanos(System.nanoTime() - releasedAt));
  }
}
