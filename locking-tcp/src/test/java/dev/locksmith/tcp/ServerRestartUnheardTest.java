package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server stopped and started again on its data directory while nothing it sends reaches a holder
 * (a frozen path: its {@code BYE} is lost): the holder takes its lease for held until it hears of
 * the stop, so the new server must not grant the lock to anyone else before the lease's end.
 */
class ServerRestartUnheardTest {
  private static final Duration TTL = Duration.ofSeconds(3);

  @TempDir Path data;

  @Test
  void aRestartedServerGrantsALockOnlyAtTheEndOfTheLeaseItsHolderStillTakesForHeld()
      throws Exception {
    LockServer first = RunningServer.start(b -> b.port(LoopbackPorts.free()).dataDir(data));
    int port = first.port();
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", port);
        LockProvider holder = LockProviders.create(RunningServer.url(proxy, ""))) {
      AtomicReference<String> lost = new AtomicReference<>("");
      holder.onLeaseLost(lease -> lost.set(lease.lockId()));
      long start = System.nanoTime();
      LeaseGrant grant = holder.tryAcquire(LockRequest.of("unheard", TTL)).orElseThrow();
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      first.close();

      try (LockServer second = RunningServer.start(b -> b.port(port).dataDir(data));
          LockProvider direct = LockProviders.create("tcp://127.0.0.1:" + second.port())) {
        assertThat(lost.get()).as("the holder has not heard of the stop").isEmpty();
        assertThat(direct.tryAcquire(LockRequest.of("unheard", TTL)))
            .as("granted to another while its holder takes it for held")
            .isEmpty();
        LeaseGrant next =
            direct.acquire(LockRequest.of("unheard", TTL), TTL.multipliedBy(3)).orElseThrow();

        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("granted to the next at the end of the holder's lease, not before")
            .isGreaterThanOrEqualTo(TTL);
        assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
      }
    }
  }
}
