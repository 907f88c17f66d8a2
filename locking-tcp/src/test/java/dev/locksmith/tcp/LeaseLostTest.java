package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A dropped connection frees its leases on the server at once; the engine must learn of it at once
 * too, not when the lease's TTL runs out.
 */
class LeaseLostTest {
  private static final Duration LONG_TTL = Duration.ofMinutes(5);

  @RegisterExtension final RunningServer server = new RunningServer();
  private LockProvider provider;
  private Locksmith locksmith;
  private final List<String> lost = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    provider = LockProviders.create(server.url());
    locksmith =
        Locksmith.builder()
            .defaultProvider(provider)
            .listener(
                LockListener.onLost((event, reason) -> lost.add(event.lockId() + ": " + reason)))
            .build();
  }

  @AfterEach
  void stop() {
    locksmith.close();
    provider.close();
  }

  private Lease holdWithoutRenewal(String name) {
    Lease lease = locksmith.acquire(LockOptions.named(name).withTtl(LONG_TTL).withRenew(false));
    assertThat(lease.isValid()).isTrue();
    return lease;
  }

  @Test
  void aServerShutdownMarksTheEnginesLeaseLostWithinASecond() {
    Lease lease = holdWithoutRenewal("shutdown");
    long start = System.nanoTime();
    server.server().close();
    await().atMost(Duration.ofSeconds(1)).until(() -> !lease.isValid() && lost.size() == 1);
    assertThat(lost.get(0)).startsWith("shutdown: the provider reported it lost");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("long before the TTL")
        .isLessThan(Duration.ofSeconds(5));
    lease.close();
  }

  @Test
  void aDroppedConnectionMarksTheEnginesLeaseLostWithinASecond() {
    Lease first = holdWithoutRenewal("dropped-a");
    Lease second = holdWithoutRenewal("dropped-b");
    ((TcpLockProvider) provider).connection().close("test drops the connection");
    await()
        .atMost(Duration.ofSeconds(1))
        .until(() -> !first.isValid() && !second.isValid() && lost.size() == 2);
    assertThat(lost).anyMatch(l -> l.startsWith("dropped-a: "));
    assertThat(lost).anyMatch(l -> l.startsWith("dropped-b: "));
    first.close();
    second.close();
    Lease again = holdWithoutRenewal("dropped-a");
    assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
    again.close();
    assertThat(lost).hasSize(2);
  }

  @Test
  void callbacksGetTheLostGrantsUntilTheirRegistrationIsClosed() throws Exception {
    List<LeaseGrant> reported = new CopyOnWriteArrayList<>();
    AutoCloseable registration = provider.onLeaseLost(reported::add);
    LeaseGrant held = provider.tryAcquire(LockRequest.of("cb", LONG_TTL)).orElseThrow();
    LeaseGrant released =
        provider.tryAcquire(LockRequest.of("cb-released", LONG_TTL)).orElseThrow();
    assertThat(provider.release(released)).isTrue();
    ((TcpLockProvider) provider).connection().close("test drops the connection");
    await().atMost(Duration.ofSeconds(1)).until(() -> reported.size() == 1);
    assertThat(reported.get(0).lockId()).isEqualTo("cb");
    assertThat(reported.get(0).ownerToken()).isEqualTo(held.ownerToken());
    assertThat(reported.get(0).fencingToken()).isEqualTo(held.fencingToken());

    registration.close();
    List<LeaseGrant> stillListening = new CopyOnWriteArrayList<>();
    try (AutoCloseable other = provider.onLeaseLost(stillListening::add)) {
      provider.tryAcquire(LockRequest.of("cb", LONG_TTL)).orElseThrow();
      ((TcpLockProvider) provider).connection().close("test drops it again");
      await().atMost(Duration.ofSeconds(1)).until(() -> stillListening.size() == 1);
    }
    assertThat(reported).as("closed registration").hasSize(1);
  }
}
