package dev.locksmith.tcp;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TcpLockProviderTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  private LockServer server;
  private int port;
  private final List<LockProvider> providers = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeEach
  void start() throws Exception {
    server = LockServer.builder().port(LoopbackPorts.free()).build();
    port = server.start();
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
    providers.forEach(LockProvider::close);
    server.close();
  }

  private LockProvider provider(String parameters) {
    return provider(port, parameters);
  }

  /** A provider, closed after the test, for {@code tcp://127.0.0.1:<port><parameters>}. */
  private LockProvider provider(int port, String parameters) {
    LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + port + parameters);
    providers.add(provider);
    return provider;
  }

  private LockProvider provider() {
    return provider("");
  }

  /**
   * Starts {@code waiter.acquire(request, wait)} on the pool; returns once the server has queued it
   * behind the lock's holder.
   */
  private Future<Optional<LeaseGrant>> queuedAcquire(
      LockProvider waiter, LockRequest request, Duration wait) {
    Future<Optional<LeaseGrant>> waiting = pool.submit(() -> waiter.acquire(request, wait));
    await().until(() -> waiter.status(request.lockId()).waiters() == 1);
    return waiting;
  }

  @Test
  void factoryIsFoundByScheme() {
    LockProvider provider = provider();
    assertThat(provider).isInstanceOf(TcpLockProvider.class);
    assertThat(provider.description()).isEqualTo("tcp://127.0.0.1:" + port);
  }

  @Test
  void tryAcquireRenewReleaseAndStatus() {
    LockProvider a = provider();
    LockProvider b = provider();
    LockRequest request = new LockRequest("orders 42/é", "token-a", TTL, "host-a/1/main");
    LeaseGrant lease = a.tryAcquire(request).orElseThrow();
    assertThat(lease.ownerToken()).isEqualTo("token-a");
    assertThat(lease.lockId()).isEqualTo("orders 42/é");
    assertThat(lease.timeLeft()).isGreaterThan(Duration.ofSeconds(29));

    assertThat(b.tryAcquire(LockRequest.of("orders 42/é", TTL))).isEmpty();
    LockStatus status = b.status("orders 42/é");
    assertThat(status.currentHolder()).isPresent();
    assertThat(status.holder().owner()).isEqualTo("host-a/1/main");
    assertThat(status.holder().fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(status.holder().timeLeft()).isBetween(Duration.ofSeconds(25), TTL);
    assertThat(status.waiters()).isZero();

    LeaseGrant renewed = a.renew(lease, Duration.ofSeconds(60)).orElseThrow();
    assertThat(renewed.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(renewed.ttl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(b.release(lease)).as("another client cannot release it").isFalse();
    assertThat(b.renew(lease, TTL)).isEmpty();

    assertThat(a.release(renewed)).isTrue();
    assertThat(a.release(renewed)).isFalse();
    assertThat(a.renew(renewed, TTL)).isEmpty();
    assertThat(b.status("orders 42/é").currentHolder()).isEmpty();
    LeaseGrant next = b.tryAcquire(LockRequest.of("orders 42/é", TTL)).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
  }

  @Test
  void anyOwnerTokenTheSpiAllowsWorks() {
    LockProvider a = provider();
    for (String token : List.of("-", "with space/ü", "%41", "x".repeat(40))) {
      LeaseGrant lease = a.tryAcquire(new LockRequest("tokens", token, TTL, "me")).orElseThrow();
      assertThat(lease.ownerToken()).isEqualTo(token);
      assertThat(a.renew(lease, TTL)).isPresent();
      assertThat(a.release(lease)).isTrue();
    }
  }

  @Test
  void acquireWaitsForAPushedGrant() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    LeaseGrant held = a.tryAcquire(LockRequest.of("push", TTL)).orElseThrow();
    long asked = System.nanoTime();
    Future<Optional<LeaseGrant>> waiting =
        queuedAcquire(b, LockRequest.of("push", Duration.ofSeconds(2)), Duration.ofSeconds(20));
    assertThat(a.release(held)).isTrue();
    LeaseGrant granted = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
    assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(granted.expired()).isFalse();
    // The whole ttl from the request's send (after this test asked), whatever the wait took.
    assertThat(granted.deadlineNanos() - (asked + Duration.ofSeconds(2).toNanos())).isNotNegative();
  }

  @Test
  void aGrantPushedLateKeepsItsConservativeDeadlineAndCanBeRenewed() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    a.tryAcquire(LockRequest.of("late", Duration.ofMillis(1500))).orElseThrow();
    Duration ttl = Duration.ofSeconds(1);
    long sent = System.nanoTime();
    LeaseGrant granted =
        b.acquire(LockRequest.of("late", ttl), Duration.ofSeconds(20)).orElseThrow();
    long arrived = System.nanoTime();
    assertThat(Duration.ofNanos(arrived - sent))
        .as("pushed when the holder's TTL ran out, after the waiter's whole TTL")
        .isGreaterThan(ttl);
    assertThat(granted.deadlineNanos())
        .as("the ACQUIRE's send time plus the ttl, not moved by a renewal in the provider")
        .isBetween(sent + ttl.toNanos(), arrived);
    assertThat(granted.expired()).as("the conservative deadline passed in transit").isTrue();

    long renewSent = System.nanoTime();
    LeaseGrant renewed = b.renew(granted, ttl).orElseThrow();
    assertThat(renewed.fencingToken()).isEqualTo(granted.fencingToken());
    assertThat(renewed.deadlineNanos()).isGreaterThanOrEqualTo(renewSent + ttl.toNanos());
    long serverLeft = b.status("late").holder().timeLeft().toMillis();
    assertThat(serverLeft + 1)
        .as("the server's lease ends no earlier than the local deadline")
        .isGreaterThanOrEqualTo(renewed.timeLeft().toMillis());
    assertThat(b.release(renewed)).isTrue();
  }

  @Test
  void aGrantArrivingLaterThanItsTtlPlusThePruneGraceIsStillHeldAndReleasable() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    LockProvider c = provider();
    LeaseGrant held = a.tryAcquire(LockRequest.of("pruned", TTL)).orElseThrow();
    Duration ttl = Duration.ofSeconds(1);
    long beforeSend = System.nanoTime();
    Future<Optional<LeaseGrant>> waiting =
        queuedAcquire(b, LockRequest.of("pruned", ttl), Duration.ofSeconds(5));
    long queued = System.nanoTime();
    // Released 2.2 s after the ACQUIRE was queued: its grant arrives more than ttl + the 1 s prune
    // grace after it was sent, and more than the 1 s prune interval after b's connection opened.
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      ScheduledFuture<Boolean> release = timer.schedule(() -> a.release(held), 2200, MILLISECONDS);
      LeaseGrant granted = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
      assertThat(release.get()).isTrue();
      assertThat(granted.deadlineNanos())
          .as("the ACQUIRE's send time plus the ttl")
          .isBetween(beforeSend + ttl.toNanos(), queued + ttl.toNanos());
      assertThat(granted.expired()).isTrue();

      LeaseGrant renewed =
          b.renew(granted, ttl).orElseThrow(() -> new AssertionError("the fresh grant was pruned"));
      assertThat(renewed.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(b.release(renewed)).isTrue();
      assertThat(c.tryAcquire(LockRequest.of("pruned", TTL))).isPresent();
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void aReleaseCutOffByADroppedConnectionCountsAsReleased() throws Exception {
    try (CuttingProxy proxy = new CuttingProxy(port, "RELEASE")) {
      LockProvider a = provider(proxy.port(), "");
      LockProvider b = provider();
      List<LeaseGrant> reportedLost = new CopyOnWriteArrayList<>();
      a.onLeaseLost(reportedLost::add);
      LeaseGrant held = a.tryAcquire(LockRequest.of("cut-release", TTL)).orElseThrow();
      Future<Optional<LeaseGrant>> waiting =
          queuedAcquire(b, LockRequest.of("cut-release", TTL), Duration.ofSeconds(20));

      assertThat(a.release(held))
          .as("the server released it, with the connection if not by the RELEASE")
          .isTrue();
      assertThat(((TcpLockProvider) a).connection().leases().count()).isZero();
      assertThat(reportedLost).as("released, not lost").isEmpty();
      LeaseGrant next = waiting.get(2, TimeUnit.SECONDS).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(a.release(held)).as("already released").isFalse();
    }
  }

  @Test
  void aRenewCutOffByADroppedConnectionIsALoss() throws Exception {
    try (CuttingProxy proxy = new CuttingProxy(port, "RENEW")) {
      LockProvider a = provider(proxy.port(), "");
      LockProvider b = provider();
      List<LeaseGrant> reportedLost = new CopyOnWriteArrayList<>();
      a.onLeaseLost(reportedLost::add);
      LeaseGrant held = a.tryAcquire(LockRequest.of("cut-renew", TTL)).orElseThrow();

      assertThat(a.renew(held, TTL)).as("the server released it with the connection").isEmpty();
      assertThat(reportedLost)
          .extracting(LeaseGrant::ownerToken)
          .containsExactly(held.ownerToken());
      assertThat(a.release(held)).isFalse();
      await()
          .atMost(Duration.ofSeconds(2))
          .until(() -> b.tryAcquire(LockRequest.of("cut-renew", TTL)).isPresent());
    }
  }

  @Test
  void ttlsAreRoundedUpToWholeMillisecondsOnTheWire() {
    assertThat(RequestLines.ttlMillis(Duration.ofNanos(1))).isEqualTo(1);
    assertThat(RequestLines.ttlMillis(Duration.ofNanos(1_500_000))).isEqualTo(2);
    assertThat(RequestLines.ttlMillis(Duration.ofMillis(5))).isEqualTo(5);
    assertThat(RequestLines.ttlMillis(Duration.ofMillis(5).plusNanos(1))).isEqualTo(6);
    assertThat(RequestLines.ttlMillis(Duration.ofDays(365 * 100))).isEqualTo(1_000_000_000_000L);
  }

  @Test
  void leasesShortenedInsteadOfReleasedAreForgottenAfterTheirDeadline() {
    TcpLockProvider a = (TcpLockProvider) provider();
    LeaseGrant lease = a.tryAcquire(LockRequest.of("shortened", TTL)).orElseThrow();
    assertThat(a.renew(lease, Duration.ofMillis(20))).isPresent();
    assertThat(a.connection().leases().count()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              LeaseGrant other = a.tryAcquire(LockRequest.of("other", TTL)).orElseThrow();
              assertThat(a.release(other)).isTrue();
              return a.connection().leases().count() == 0;
            });
  }

  @Test
  void acquireReturnsEmptyOnTimeoutAndLeavesNothingQueued() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    a.tryAcquire(LockRequest.of("busy", TTL)).orElseThrow();
    long start = System.nanoTime();
    assertThat(b.acquire(LockRequest.of("busy", TTL), Duration.ofMillis(200))).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(190));
    assertThat(a.status("busy").waiters()).isZero();
  }

  @Test
  void interruptedAcquireThrowsAndLeavesNothingHeld() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    LeaseGrant held = a.tryAcquire(LockRequest.of("intr", TTL)).orElseThrow();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                b.acquire(LockRequest.of("intr", TTL), Duration.ofSeconds(30));
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    waiter.start();
    await().until(() -> a.status("intr").waiters() == 1);
    waiter.interrupt();
    assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(a.status("intr").waiters()).isZero();
    assertThat(a.release(held)).isTrue();
    assertThat(a.status("intr").currentHolder()).isEmpty();
  }

  @Test
  void anInterruptedCallerStillGetsItsAnswerWithoutWaitingAndKeepsItsInterrupt() {
    LockProvider a = provider();
    // Warmed up: the first call connects, which an interrupt may rightly cut short.
    a.release(a.tryAcquire(LockRequest.of("warm-up", TTL)).orElseThrow());
    Thread.currentThread().interrupt();
    try {
      LeaseGrant one = a.tryAcquire(LockRequest.of("free", TTL)).orElseThrow();
      List<LeaseGrant> two =
          a.tryAcquireAll(List.of(LockRequest.of("free-a", TTL), LockRequest.of("free-b", TTL)))
              .orElseThrow();
      assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
      assertThat(two).hasSize(2);
      Thread.interrupted();
      assertThat(a.release(one)).isTrue();
      assertThat(a.release(two.get(0))).isTrue();
      assertThat(a.release(two.get(1))).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void expiredLeaseCannotBeRenewedOrReleased() {
    LockProvider a = provider();
    LeaseGrant lease = a.tryAcquire(LockRequest.of("short", Duration.ofMillis(100))).orElseThrow();
    await().atMost(Duration.ofSeconds(2)).until(() -> a.status("short").currentHolder().isEmpty());
    assertThat(a.renew(lease, TTL)).isEmpty();
    assertThat(a.release(lease)).isFalse();
  }

  @Test
  void aDroppedConnectionLosesItsLeasesAndTheProviderReconnects() throws Exception {
    LockProvider a = provider();
    LockProvider b = provider();
    LeaseGrant lease = a.tryAcquire(LockRequest.of("drop", TTL)).orElseThrow();
    ((TcpLockProvider) a).connection().close("test drops the connection");
    await().until(() -> b.status("drop").currentHolder().isEmpty());
    assertThat(a.renew(lease, TTL)).as("lost, not assumed held").isEmpty();
    assertThat(a.release(lease)).isFalse();
    LeaseGrant again = a.tryAcquire(LockRequest.of("drop", TTL)).orElseThrow();
    assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(a.renew(again, TTL)).isPresent();
  }

  @Test
  void serverRestartLosesLeasesAndTheProviderReconnectsWithBackOff() throws Exception {
    LockProvider a = provider();
    LeaseGrant lease = a.tryAcquire(LockRequest.of("restart", TTL)).orElseThrow();
    server.close();
    await().until(() -> a.renew(lease, TTL).isEmpty());
    assertThatThrownBy(() -> a.tryAcquire(LockRequest.of("restart", TTL)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("127.0.0.1:" + port);
    server = LockServer.builder().port(port).build();
    server.start();
    LeaseGrant again =
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreException(LockProviderException.class)
            .until(() -> a.tryAcquire(LockRequest.of("restart", TTL)), Optional::isPresent)
            .orElseThrow();
    assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(a.release(lease)).isFalse();
  }

  @Test
  void manyThreadsShareOneConnectionAndExcludeEachOther() throws Exception {
    LockProvider shared = provider();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> tasks = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      tasks.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 25; i++) {
                  LeaseGrant g =
                      shared
                          .acquire(LockRequest.of("mutex", TTL), Duration.ofSeconds(30))
                          .orElseThrow();
                  maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                  inside.decrementAndGet();
                  assertThat(shared.release(g)).isTrue();
                  done.incrementAndGet();
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> task : tasks) {
      task.get(60, TimeUnit.SECONDS);
    }
    assertThat(done.get()).isEqualTo(200);
    assertThat(maxInside.get()).isEqualTo(1);
  }

  @Test
  void anUnreachableServerFailsCallsNotCreation() {
    server.close();
    LockProvider provider = provider("?connect-timeout=1s");
    assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("down", TTL)))
        .isInstanceOf(LockProviderException.class)
        .hasMessage("lock server 127.0.0.1:" + port + " refused the connection");
  }

  @Test
  void aPortOutOfRangeIsRefusedAtCreationNotReportedAsAnOutage() {
    assertThatThrownBy(() -> LockProviders.create("tcp://127.0.0.1:99999"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has port 99999; expected 1 to 65535");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "?colour=red                  | unknown parameter 'colour'",
        "/locks                       | has path '/locks'",
        "?request-timeout=soon        | parameter 'request-timeout'",
        "?secret-file=/nonexistent/s  | parameter 'secret-file': cannot read '/nonexistent/s'",
        "?tls=maybe                   | parameter 'tls' is not true or false",
        "?ping-interval=PT0.0005S     | parameter 'ping-interval': duration 'PT0.0005S' has a part",
        "?connect-timeout=PT0.0001S   | parameter 'connect-timeout': duration 'PT0.0001S' has a",
      })
  void badUrlsNameTheWrongPart(String rest, String named) {
    assertThatThrownBy(() -> LockProviders.create("tcp://127.0.0.1:" + port + rest))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(named);
  }
}
