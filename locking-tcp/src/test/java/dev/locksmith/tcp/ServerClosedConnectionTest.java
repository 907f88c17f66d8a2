package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder's connection that the server closes on its own (here by its idle timeout; a stalled
 * request line or a reset that reaches only the server do the same) while nothing the server sends
 * reaches the holder: the holder takes its lease for held until it hears of the close, so the
 * server must not grant the lock to anyone else before the lease's end.
 */
class ServerClosedConnectionTest {
  private static final Duration TTL = Duration.ofSeconds(3);

  @RegisterExtension
  final RunningServer server = new RunningServer(b -> b.idleTimeout(Duration.ofMillis(500)));

  @Test
  void aConnectionTheServerClosedUnheardKeepsItsLeaseUntilItsEnd() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider holder = LockProviders.create(RunningServer.url(proxy, ""));
        // Pings often enough that the server's idle timeout spares its connection.
        LockProvider other = LockProviders.create(server.url("?ping-interval=100ms"))) {
      AtomicReference<String> lost = new AtomicReference<>("");
      holder.onLeaseLost(lease -> lost.set(lease.lockId()));
      long start = System.nanoTime();
      LeaseGrant grant = holder.tryAcquire(LockRequest.of("unheard", TTL)).orElseThrow();
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);

      // The server closed the holder's connection: only the other provider's is left.
      await().until(() -> TcpServerStats.fetch(other).orElseThrow().connections() == 1);
      assertThat(lost.get()).as("the holder has not heard of the close").isEmpty();
      assertThat(other.tryAcquire(LockRequest.of("unheard", TTL)))
          .as("granted to another while its holder takes it for held")
          .isEmpty();
      LeaseGrant next =
          other.acquire(LockRequest.of("unheard", TTL), TTL.multipliedBy(3)).orElseThrow();

      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("granted to the next at the end of the holder's lease, not before")
          .isGreaterThanOrEqualTo(TTL);
      assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
    }
  }
}
