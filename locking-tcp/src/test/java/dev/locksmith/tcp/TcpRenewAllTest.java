package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.RenewalChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TcpLockProvider#renewAll} against the real lock server: one write for the whole batch and
 * one request line per lease on the server, answers in request order with {@code renew}'s
 * semantics, and deadlines counted from the send.
 */
class TcpRenewAllTest {
  private static final Duration TTL = Duration.ofSeconds(20);
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void aHundredLeasesAreRenewedInOneWriteAndOneRequestEach() {
    try (TcpLockProvider provider = (TcpLockProvider) LockProviders.create(server.url())) {
      List<RenewalRequest> requests = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        LeaseGrant grant = provider.tryAcquire(LockRequest.of("batch-" + i, TTL)).orElseThrow();
        requests.add(new RenewalRequest(grant, TTL));
      }
      ClientConnection connection = provider.connection();
      long requestsBefore = provider.serverStats().requests();
      long writesBefore = connection.writes();
      long sent = System.nanoTime();

      List<Optional<LeaseGrant>> renewed = provider.renewAll(requests);

      assertThat(connection.writes() - writesBefore).as("writes, each one flush").isEqualTo(1);
      // The second STATS counts itself too.
      assertThat(provider.serverStats().requests() - requestsBefore).isEqualTo(100 + 1);
      assertThat(renewed).hasSize(100);
      for (int i = 0; i < 100; i++) {
        LeaseGrant before = requests.get(i).lease();
        LeaseGrant lease =
            RenewalChecks.assertRenewed(before, renewed.get(i), sent, TTL, "lease " + i);
        assertThat(lease.deadlineNanos()).isGreaterThan(before.deadlineNanos());
      }
      assertThat(provider.status("batch-42").currentHolder())
          .hasValueSatisfying(
              h -> {
                assertThat(h.fencingToken()).isEqualTo(requests.get(42).lease().fencingToken());
                assertThat(h.timeLeft()).isGreaterThan(TTL.minusSeconds(2));
              });
    }
  }

  @Test
  void aLeaseReleasedOrExpiredMeanwhileIsAnsweredEmptyInItsPlace() throws Exception {
    try (LockProvider provider = LockProviders.create(server.url());
        LockProvider other = LockProviders.create(server.url())) {
      LeaseGrant first = provider.tryAcquire(LockRequest.of("mixed-1", TTL)).orElseThrow();
      LeaseGrant released = provider.tryAcquire(LockRequest.of("mixed-2", TTL)).orElseThrow();
      LeaseGrant expired =
          provider.tryAcquire(LockRequest.of("mixed-3", Duration.ofMillis(200))).orElseThrow();
      LeaseGrant last = provider.tryAcquire(LockRequest.of("mixed-4", TTL)).orElseThrow();
      assertThat(provider.release(released)).isTrue();
      LeaseGrant stolen =
          other
              .acquire(LockRequest.of("mixed-3", TTL), Duration.ofSeconds(5))
              .orElseThrow(); // granted once the short lease expired on the server

      List<Optional<LeaseGrant>> renewed =
          provider.renewAll(
              List.of(
                  new RenewalRequest(first, TTL),
                  new RenewalRequest(released, TTL),
                  new RenewalRequest(expired, Duration.ofMillis(200)),
                  new RenewalRequest(last, TTL)));

      assertThat(renewed.get(0)).isPresent();
      assertThat(renewed.get(1)).as("released").isEmpty();
      assertThat(renewed.get(2)).as("expired and taken by another").isEmpty();
      assertThat(renewed.get(3)).isPresent();
      assertThat(other.status("mixed-3").currentHolder())
          .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(stolen.fencingToken()));
      assertThat(provider.renew(expired, Duration.ofMillis(200))).isEmpty();
    }
  }

  @Test
  void aBatchOverADroppedConnectionIsAnsweredEmpty() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider =
            LockProviders.create(RunningServer.url(proxy, "?request-timeout=10s"))) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("dropped-batch", TTL)).orElseThrow();
      List<LeaseGrant> lost = Collections.synchronizedList(new ArrayList<>());
      provider.onLeaseLost(lost::add);
      proxy.resetAll();
      await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());

      assertThat(provider.renewAll(List.of(new RenewalRequest(grant, TTL))))
          .containsExactly(Optional.empty());
    }
  }

  @Test
  void aBatchWithoutRepliesFailsAfterTheRequestTimeout() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider =
            LockProviders.create(RunningServer.url(proxy, "?request-timeout=500ms"))) {
      List<RenewalRequest> requests = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        LeaseGrant grant = provider.tryAcquire(LockRequest.of("silent-" + i, TTL)).orElseThrow();
        requests.add(new RenewalRequest(grant, TTL));
      }
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      long sent = System.nanoTime();

      assertThatThrownBy(() -> provider.renewAll(requests))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("did not answer a batch of 10 RENEW requests within");
      assertThat(Duration.ofNanos(System.nanoTime() - sent))
          .as("one deadline for the batch, not one per lease")
          .isLessThan(Duration.ofSeconds(2));
      proxy.thaw();
    }
  }

  @Test
  void aShorterTtlDetachesTheLeaseAsRenewDoes() throws Exception {
    try (LockProvider observer = LockProviders.create(server.url())) {
      LockProvider provider = LockProviders.create(server.url());
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("batch-hold", TTL)).orElseThrow();
      assertThat(provider.renewAll(List.of(new RenewalRequest(grant, Duration.ofSeconds(10)))))
          .singleElement()
          .satisfies(renewed -> assertThat(renewed).isPresent());
      provider.close();
      assertThat(observer.status("batch-hold").currentHolder())
          .as("a lease shortened to its minimum hold outlives the connection")
          .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(grant.fencingToken()));
    }
  }

  @Test
  void anEmptyBatchSendsNothing() {
    try (TcpLockProvider provider = (TcpLockProvider) LockProviders.create(server.url())) {
      ClientConnection connection = provider.connection();
      long writesBefore = connection.writes();
      assertThat(provider.renewAll(List.of())).isEmpty();
      assertThat(connection.writes()).isEqualTo(writesBefore);
    }
  }

  @Test
  void moreThan512RenewalsAreRefused() {
    try (LockProvider provider = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("too-many", TTL)).orElseThrow();
      List<RenewalRequest> requests =
          Collections.nCopies(
              LockProvider.MAX_RENEWALS_PER_CALL + 1, new RenewalRequest(grant, TTL));
      assertThatThrownBy(() -> provider.renewAll(requests))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("513")
          .hasMessageContaining("512");
      assertThat(
              provider.renewAll(
                  Collections.nCopies(
                      LockProvider.MAX_RENEWALS_PER_CALL, new RenewalRequest(grant, TTL))))
          .hasSize(512)
          .allSatisfy(renewed -> assertThat(renewed).isPresent());
    }
  }
}
