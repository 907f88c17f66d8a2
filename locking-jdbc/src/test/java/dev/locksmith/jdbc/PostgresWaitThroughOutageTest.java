package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.FaultProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine on PostgreSQL behind a {@link FaultProxy} whose path freezes, so that every call of
 * the provider (1 s call bound) fails: a WAIT rides through the outage and is granted once the path
 * heals, within its wait timeout; a WAIT whose timeout passes during the outage fails with a {@link
 * LockTimeoutException} caused by the outage; SKIP fails fast while the circuit is open.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresWaitThroughOutageTest {
  private final String url =
      TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_wait_outage"));
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private FaultProxy proxy;
  private JdbcLockProvider faulty;
  private JdbcLockProvider other;
  private Locksmith locksmith;

  @BeforeEach
  void start() throws Exception {
    proxy = Urls.proxyTo(url, 5432);
    faulty = Urls.throughProxy(url, proxy, "&timeout=1s");
    other = JdbcLockProvider.create(url);
    // A cold JVM's first connection may take longer than this client's 1 s.
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptionsInstanceOf(LockProviderException.class)
        .until(() -> faulty.status("warm").holder() == null);
    locksmith =
        Locksmith.builder()
            .defaultProvider(faulty)
            .providerProbeInterval(Duration.ofMillis(200))
            .build();
    await().atMost(Duration.ofSeconds(10)).until(() -> locksmith.health().get(0).up());
  }

  @AfterEach
  void stop() throws Exception {
    proxy.thaw();
    pool.shutdownNow();
    locksmith.close();
    faulty.close();
    other.close();
    proxy.close();
  }

  /** Freezes the path both ways and waits until the engine's circuit for it is open. */
  private void outage() {
    proxy.freeze(FaultProxy.Direction.TO_SERVER);
    proxy.freeze(FaultProxy.Direction.TO_CLIENT);
    assertThatThrownBy(
            () -> locksmith.run(LockOptions.named("tick").withOnBusy(OnBusy.SKIP), () -> {}))
        .isInstanceOf(LockProviderException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> !locksmith.health().get(0).up());
  }

  @Test
  void aWaitStartedDuringTheOutageIsGrantedAfterThePathHeals() throws Exception {
    outage();
    long started = System.nanoTime();
    CompletableFuture<Lease> waiter =
        CompletableFuture.supplyAsync(
            () ->
                locksmith.acquire(LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(60))),
            pool);
    // The outage outlasts a few of the client's 1 s call bounds, and the waiter keeps waiting.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !waiter.isDone());
    assertThat(locksmith.health().get(0).up()).isFalse();

    proxy.thaw();
    proxy.resetAll(); // connections that hung through the outage are dropped, as a NAT would
    try (Lease lease = waiter.get(30, TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
      assertThat(other.status("job").holder()).isNotNull();
      assertThat(other.status("job").holder().fencingToken()).isEqualTo(lease.fencingToken());
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void aWaitWhoseTimeoutPassesDuringTheOutageFailsWithTheOutageAsItsCause() {
    outage();
    Throwable thrown =
        catchThrowable(
            () ->
                locksmith.acquire(LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(3))));
    assertThat(thrown)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Timed out after ")
        .hasMessageContaining("waiting for lock 'job': lock provider default (")
        .hasMessageContaining(") did not answer (")
        .hasCauseInstanceOf(LockProviderException.class);
    assertThat(((LockTimeoutException) thrown).waited())
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3))
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void skipAndFailFailFastDuringTheOutage() {
    outage();
    for (OnBusy onBusy : new OnBusy[] {OnBusy.SKIP, OnBusy.FAIL}) {
      long started = System.nanoTime();
      assertThatThrownBy(
              () -> locksmith.run(LockOptions.named("report").withOnBusy(onBusy), () -> {}))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("is down since");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("no call bound waited out")
          .isLessThan(Duration.ofMillis(900));
    }
  }
}
