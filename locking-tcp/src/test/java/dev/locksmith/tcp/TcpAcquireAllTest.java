package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TcpLockProvider#tryAcquireAll}: one ACQUIRE-ALL request, all or none, on a real server.
 */
class TcpAcquireAllTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @RegisterExtension final RunningServer server = new RunningServer();
  private final List<LockProvider> providers = new ArrayList<>();

  @AfterEach
  void stop() {
    providers.forEach(LockProvider::close);
  }

  /** A provider whose connection sends no PING during a test, so requests can be counted. */
  private LockProvider provider() {
    LockProvider provider = LockProviders.create(server.url("?ping-interval=10m"));
    providers.add(provider);
    return provider;
  }

  private static List<LockRequest> requests(String... lockIds) {
    List<LockRequest> requests = new ArrayList<>();
    for (String lockId : lockIds) {
      requests.add(new LockRequest(lockId, "tok-" + lockId, TTL, "host/1/transfer"));
    }
    return requests;
  }

  private static TcpServerStats stats(LockProvider provider) {
    return TcpServerStats.fetch(provider).orElseThrow();
  }

  @Test
  void threeKeysAreTakenWithOneRequest() {
    LockProvider a = provider();
    TcpServerStats before = stats(a);
    List<LeaseGrant> grants =
        a.tryAcquireAll(requests("acct:1", "acct:2", "acct 3/é")).orElseThrow();
    TcpServerStats after = stats(a);

    assertThat(after.requests() - before.requests())
        .as("the ACQUIRE-ALL and the second STATS")
        .isEqualTo(2);
    assertThat(after.grants() - before.grants()).isEqualTo(3);
    assertThat(grants)
        .extracting(LeaseGrant::lockId)
        .containsExactly("acct:1", "acct:2", "acct 3/é");
    assertThat(grants)
        .extracting(LeaseGrant::ownerToken)
        .containsExactly("tok-acct:1", "tok-acct:2", "tok-acct 3/é");
    assertThat(grants.get(1).fencingToken()).isGreaterThan(grants.get(0).fencingToken());
    assertThat(grants.get(2).fencingToken()).isGreaterThan(grants.get(1).fencingToken());
    for (LeaseGrant grant : grants) {
      assertThat(grant.timeLeft()).isGreaterThan(Duration.ofSeconds(29));
      assertThat(a.status(grant.lockId()).holder().fencingToken()).isEqualTo(grant.fencingToken());
    }
    assertThat(a.renew(grants.get(1), TTL)).isPresent();
    for (LeaseGrant grant : grants) {
      assertThat(a.release(grant)).isTrue();
    }
    assertThat(a.status("acct:2").currentHolder()).isEmpty();
  }

  @Test
  void oneBusyLockLeavesNoneTaken() {
    LockProvider a = provider();
    LockProvider b = provider();
    LeaseGrant held = b.tryAcquire(LockRequest.of("acct:2", TTL)).orElseThrow();
    TcpServerStats before = stats(a);

    assertThat(a.tryAcquireAll(requests("acct:1", "acct:2", "acct:3"))).isEmpty();

    assertThat(stats(a).requests() - before.requests()).isEqualTo(2);
    assertThat(a.status("acct:1").currentHolder()).isEmpty();
    assertThat(a.status("acct:3").currentHolder()).isEmpty();
    assertThat(stats(a).heldLocks()).isEqualTo(1);
    assertThat(b.release(held)).isTrue();
    assertThat(a.tryAcquireAll(requests("acct:1", "acct:2", "acct:3"))).isPresent();
  }

  @Test
  void theLeasesBelongToTheConnectionAndAreReportedLostWithIt() {
    LockProvider a = provider();
    LockProvider b = provider();
    List<LeaseGrant> lost = new CopyOnWriteArrayList<>();
    a.onLeaseLost(lost::add);
    List<LeaseGrant> grants = a.tryAcquireAll(requests("x", "y", "z")).orElseThrow();

    ((TcpLockProvider) a).connection().close("test drops the connection");

    await().until(() -> lost.size() == 3);
    assertThat(lost).containsExactlyInAnyOrderElementsOf(grants);
    await().until(() -> stats(b).heldLocks() == 0);
    assertThat(b.tryAcquireAll(requests("z", "x"))).isPresent();
    assertThat(a.renew(grants.get(0), TTL)).isEmpty();
    assertThat(a.release(grants.get(2))).isFalse();
  }

  @Test
  void sixtyFourLocksAreOneRequest() {
    LockProvider a = provider();
    String[] ids = IntStream.range(0, 64).mapToObj(i -> "lock-" + i).toArray(String[]::new);
    TcpServerStats before = stats(a);

    List<LeaseGrant> grants = a.tryAcquireAll(requests(ids)).orElseThrow();

    assertThat(grants).hasSize(64);
    TcpServerStats after = stats(a);
    assertThat(after.requests() - before.requests()).isEqualTo(2);
    assertThat(after.heldLocks()).isEqualTo(64);
  }

  @Test
  void requestsThatDifferInTtlAreTakenOneByOne() {
    LockProvider a = provider();
    List<LockRequest> requests =
        List.of(
            new LockRequest("p", "tok-p", TTL, "host"),
            new LockRequest("q", "tok-q", Duration.ofSeconds(10), "host"));
    TcpServerStats before = stats(a);

    List<LeaseGrant> grants = a.tryAcquireAll(requests).orElseThrow();

    assertThat(stats(a).requests() - before.requests()).isEqualTo(3);
    assertThat(grants).extracting(LeaseGrant::ttl).containsExactly(TTL, Duration.ofSeconds(10));
  }

  @Test
  void batchesTheSpiForbidsAreRefusedBeforeAnythingIsSent() {
    LockProvider a = provider();
    TcpServerStats before = stats(a);
    String[] tooMany = IntStream.range(0, 65).mapToObj(i -> "k" + i).toArray(String[]::new);

    assertThatThrownBy(() -> a.tryAcquireAll(requests(tooMany)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 64");
    assertThatThrownBy(() -> a.tryAcquireAll(requests("k", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'k' twice");
    assertThatThrownBy(() -> a.tryAcquireAll(List.of()))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(stats(a).requests() - before.requests()).isEqualTo(1);
  }
}
