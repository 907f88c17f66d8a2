package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A provider the application closes ends its connection with {@code QUIT}, so the server takes the
 * close for the client's own, whatever reaches it afterwards (a close with a reply still unread
 * reaches it as a reset, and a reset connection's leases are kept until their TTL).
 */
class ProviderQuitTest {
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void closingTheProviderSendsQuitAsItsLastRequest() throws Exception {
    try (OldServer old =
        new OldServer(
            Map.of(
                "ACQUIRE", words -> "OK " + words[5] + " 1 " + words[3],
                "QUIT", words -> "BYE"))) {
      LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + old.port());
      provider.tryAcquire(LockRequest.of("job", Duration.ofSeconds(30))).orElseThrow();

      provider.close();

      assertThat(old.commands()).containsExactly("ACQUIRE", "QUIT");
    }
  }

  @Test
  void theServerReleasesTheLeasesOfAClosedProviderAtOnce() throws Exception {
    LockProvider provider = LockProviders.create(server.url());
    provider.tryAcquire(LockRequest.of("quit-job", Duration.ofMinutes(5))).orElseThrow();

    provider.close();

    try (LockProvider next = LockProviders.create(server.url())) {
      await()
          .atMost(Duration.ofSeconds(2))
          .until(
              () -> next.tryAcquire(LockRequest.of("quit-job", Duration.ofSeconds(5))).isPresent());
    }
  }
}
