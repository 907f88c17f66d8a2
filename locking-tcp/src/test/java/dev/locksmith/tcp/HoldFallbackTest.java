package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Against a server too old to know HOLD (it answers {@code ERR UNKNOWN_COMMAND}), a lease shortened
 * to its minimum hold is renewed with RENEW instead, stays tied to the connection, and HOLD is not
 * tried again.
 */
class HoldFallbackTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aServerWithoutHoldGetsRenewAndTheLeaseStaysTiedToTheConnection() throws Exception {
    try (OldServer server =
        new OldServer(
            Map.of(
                "ACQUIRE", words -> "OK " + words[5] + " 1 " + words[3],
                "RENEW", words -> "OK " + words[3] + " 1 " + words[4]))) {
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + server.port())) {
        List<LeaseGrant> lost = new CopyOnWriteArrayList<>();
        provider.onLeaseLost(lost::add);
        LeaseGrant lease = provider.tryAcquire(LockRequest.of("old", TTL)).orElseThrow();

        LeaseGrant shortened = provider.renew(lease, Duration.ofSeconds(2)).orElseThrow();
        assertThat(shortened.ttl()).isEqualTo(Duration.ofSeconds(2));
        assertThat(provider.renew(shortened, Duration.ofSeconds(3))).isPresent();
        assertThat(server.commands())
            .as("HOLD tried once, refused, then RENEW; RENEW only from then on")
            .containsExactly("ACQUIRE", "HOLD", "RENEW", "RENEW");

        server.dropConnection();
        await()
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () ->
                    assertThat(lost)
                        .as("not detached: lost with its connection")
                        .extracting(LeaseGrant::ownerToken)
                        .containsExactly(lease.ownerToken()));
      }
    }
  }
}
