package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.FaultProxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link FaultProxy} between a client and PostgreSQL: a frozen path makes a call fail within the
 * provider's timeout, and a grant whose reply never came back is ended by the provider's clean-up
 * long before its TTL; a late reply is not taken for a fresh grant.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresFaultTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  @Test
  void aFrozenPathFailsWithinTheTimeoutAndTheUnknownGrantIsEndedAfterwards() throws Exception {
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_fault"));
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=1s");
        JdbcLockProvider other = JdbcLockProvider.create(url)) {
      // A cold JVM's first connection may take longer than this client's 1 s.
      await()
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptionsInstanceOf(LockProviderException.class)
          .until(() -> faulty.status("warm").holder() == null);

      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      long start = System.nanoTime();
      assertThatThrownBy(() -> faulty.tryAcquire(LockRequest.of("frozen", Duration.ofSeconds(60))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("acquire of lock 'frozen' failed");
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took)
          .as("bounded by the timeout and one connect")
          .isLessThan(TIMEOUT.multipliedBy(4));
      // The statement reached the server: the lock is held by the acquisition that failed.
      assertThat(other.status("frozen").holder()).isNotNull();

      proxy.thaw();
      // The clean-up ends it, far sooner than its 60 s TTL.
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> other.tryAcquire(LockRequest.of("frozen", Duration.ofSeconds(5))).isPresent());
    }
  }

  @Test
  void closingRightAfterAFailedAcquireStillEndsTheUnknownGrant() throws Exception {
    // As a run whose acquire failed does on its way out: the clean-up must not be cut by the
    // closing pool, or the ghost lease holds the lock for its whole TTL.
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_fault_close"));
    ExecutorService closing = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider other = JdbcLockProvider.create(url)) {
      JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=1s");
      await()
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptionsInstanceOf(LockProviderException.class)
          .until(() -> faulty.status("warm").holder() == null);

      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      assertThatThrownBy(
              () -> faulty.tryAcquire(LockRequest.of("closed-frozen", Duration.ofSeconds(60))))
          .isInstanceOf(LockProviderException.class);
      assertThat(other.status("closed-frozen").holder()).as("held by the ghost").isNotNull();
      AtomicReference<Thread> closer = new AtomicReference<>();
      Future<?> closed =
          closing.submit(
              () -> {
                closer.set(Thread.currentThread());
                faulty.close();
              });
      // Thawed once close returned, or waits for something with the path still frozen.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  closed.isDone()
                      || closer.get() != null
                          && closer.get().getState() == Thread.State.TIMED_WAITING);
      proxy.thaw();
      closed.get(10, TimeUnit.SECONDS);

      assertThat(other.tryAcquire(LockRequest.of("closed-frozen", Duration.ofSeconds(5))))
          .as("ended by the clean-up before the pool closed, not by its 60 s TTL")
          .isPresent();
    } finally {
      closing.shutdownNow();
    }
  }

  @Test
  void aRetriedRenewalCountsItsDeadlineFromTheFirstSend() throws Exception {
    // The first run reaches the database and only its reply is lost: it may also be the run that
    // commits last, so the deadline the client learns must not count from the retry's later send.
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_retried_renew"));
    Duration ttl = Duration.ofSeconds(30);
    Duration lateReset = Duration.ofMillis(500);
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=10s")) {
      LeaseGrant lease = faulty.tryAcquire(LockRequest.of("retried", ttl)).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, lateReset);
      proxy.loseNextReply();
      long sent = System.nanoTime();
      LeaseGrant renewed = faulty.renew(lease, ttl).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);

      assertThat(Duration.ofNanos(System.nanoTime() - sent))
          .as("run again once the reset came")
          .isGreaterThanOrEqualTo(lateReset);
      assertThat(Duration.ofNanos(renewed.deadlineNanos() - sent))
          .as("counted from the first run's send, not the retry's")
          .isLessThan(ttl.plus(lateReset.dividedBy(2)));
    }
  }

  @Test
  void aRetriedReleaseWhoseFirstRunFreedTheLockForAWaiterReportsReleased() throws Exception {
    // The first run ends the lease and only its reply is lost; a waiter takes the lock before the
    // retry, which then finds the waiter's row, not this owner's.
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_retried_release"));
    Duration lateReset = Duration.ofSeconds(1);
    ExecutorService waiting = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=10s");
        JdbcLockProvider other = JdbcLockProvider.create(url)) {
      LeaseGrant lease =
          faulty.tryAcquire(LockRequest.of("handed-on", Duration.ofSeconds(30))).orElseThrow();
      Future<Optional<LeaseGrant>> waiter =
          waiting.submit(
              () ->
                  other.acquire(LockRequest.of("handed-on", Duration.ofSeconds(30)), TEN_SECONDS));
      proxy.delay(FaultProxy.Direction.TO_CLIENT, lateReset);
      proxy.loseNextReply();
      boolean released = faulty.release(lease);
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);

      assertThat(waiter.isDone()).as("the waiter took the lock before the retry").isTrue();
      LeaseGrant next = waiter.get().orElseThrow();
      assertThat(released).as("ended by its first run, while held").isTrue();
      assertHolds(other, next);
    } finally {
      waiting.shutdownNow();
    }
  }

  @Test
  void aRetriedShorteningWhoseFirstRunLetAWaiterInReportsRenewed() throws Exception {
    // A lease kept for its minimum hold is shortened; the first run shortens it and only its reply
    // is lost. The reset that tells the client so is held until the shortened lease has ended and
    // a waiter has taken the lock, so the retry finds the waiter's row, not this owner's.
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_retried_shorten"));
    Duration ttl = Duration.ofSeconds(2);
    Duration holdLeft = Duration.ofMillis(100);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=10s");
        JdbcLockProvider other = JdbcLockProvider.create(url)) {
      LeaseGrant lease = faulty.tryAcquire(LockRequest.of("held-on", ttl)).orElseThrow();
      Future<Optional<LeaseGrant>> waiter =
          threads.submit(() -> other.acquire(LockRequest.of("held-on", ttl), TEN_SECONDS));
      proxy.delay(FaultProxy.Direction.TO_CLIENT, TEN_SECONDS);
      proxy.loseNextReply();
      long sent = System.nanoTime();
      Future<Optional<LeaseGrant>> shortening = threads.submit(() -> faulty.renew(lease, holdLeft));
      LeaseGrant next = waiter.get(TEN_SECONDS.toSeconds(), TimeUnit.SECONDS).orElseThrow();
      assertThat(shortening.isDone()).as("the reset is still held").isFalse();
      long retried = System.nanoTime();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);
      Optional<LeaseGrant> shortened = shortening.get(TEN_SECONDS.toSeconds(), TimeUnit.SECONDS);

      assertThat(shortened).as("held until the end it asked for, by its first run").isPresent();
      assertThat(shortened.orElseThrow().deadlineNanos())
          .as("the end the first run asked for, before the retry was sent")
          .isGreaterThanOrEqualTo(sent + holdLeft.toNanos())
          .isLessThan(retried);
      assertHolds(other, next);
    } finally {
      threads.shutdownNow();
    }
  }

  private static void assertHolds(JdbcLockProvider provider, LeaseGrant lease) {
    assertThat(provider.status(lease.lockId()).holder())
        .as("the waiter holds it")
        .isNotNull()
        .extracting(LockStatus.Holder::fencingToken)
        .isEqualTo(lease.fencingToken());
  }

  @Test
  void aReplyHeldPastTheTtlComesBackWithADeadlineAlreadyPassed() throws Exception {
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_late"));
    try (FaultProxy proxy = Urls.proxyTo(url, 5432);
        JdbcLockProvider faulty = Urls.throughProxy(url, proxy, "&timeout=5s")) {
      LeaseGrant warm = faulty.tryAcquire(LockRequest.of("warm", Duration.ofSeconds(5))).get();
      faulty.release(warm);
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(300));
      Optional<LeaseGrant> late = faulty.tryAcquire(LockRequest.of("late", Duration.ofMillis(200)));
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);
      assertThat(late).isPresent();
      assertThat(late.get().expired())
          .as("the local deadline counts from the request, so a late grant arrives expired")
          .isTrue();
    }
  }
}
