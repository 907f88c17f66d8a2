package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Against a server too old to know ACQUIRE-ALL (it answers {@code ERR UNKNOWN_COMMAND}), {@code
 * tryAcquireAll} takes the locks one by one instead, and ACQUIRE-ALL is not tried again.
 */
class AcquireAllFallbackTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aServerWithoutAcquireAllGetsOneAcquirePerLock() throws Exception {
    AtomicLong fencing = new AtomicLong();
    try (OldServer server =
        new OldServer(
            Map.of(
                "ACQUIRE",
                words -> "OK " + words[5] + " " + fencing.incrementAndGet() + " " + words[3]))) {
      try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + server.port())) {
        List<LeaseGrant> first =
            provider
                .tryAcquireAll(List.of(LockRequest.of("a", TTL), LockRequest.of("b", TTL)))
                .orElseThrow();
        List<LeaseGrant> second =
            provider
                .tryAcquireAll(List.of(LockRequest.of("c", TTL), LockRequest.of("d", TTL)))
                .orElseThrow();

        assertThat(first).extracting(LeaseGrant::lockId).containsExactly("a", "b");
        assertThat(second).extracting(LeaseGrant::lockId).containsExactly("c", "d");
        assertThat(second.get(1).fencingToken()).isGreaterThan(first.get(0).fencingToken());
        assertThat(server.commands())
            .as("ACQUIRE-ALL tried once, refused, then one ACQUIRE per lock from then on")
            .containsExactly("ACQUIRE-ALL", "ACQUIRE", "ACQUIRE", "ACQUIRE", "ACQUIRE");
      }
    }
  }
}
