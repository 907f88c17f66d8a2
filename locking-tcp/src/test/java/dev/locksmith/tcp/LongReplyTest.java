package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A reply that names a long lock id is a reply like any other: on a server whose {@code
 * maxKeyBytes} was raised, the {@code BUSY} answer to an {@code ACQUIRE-ALL} names the busy lock as
 * it was sent, here in 70,007 bytes, beyond the 64 KiB the client once took for the longest reply.
 * The call finds the lock busy; the connection and the leases held over it stay.
 */
class LongReplyTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final String LONG_ID = "k".repeat(70_000);

  @RegisterExtension
  final RunningServer server = new RunningServer(settings -> settings.maxKeyBytes(100_000));

  @Test
  void aBusyAnswerNamingALongLockIdEndsNothingElse() {
    try (LockProvider holder = LockProviders.create(server.url());
        LockProvider other = LockProviders.create(server.url())) {
      assertThat(holder.tryAcquire(request(LONG_ID, "tok-holder"))).isPresent();
      LeaseGrant kept = other.tryAcquire(request("keep", "tok-keep")).orElseThrow();

      assertThat(other.tryAcquireAll(List.of(request(LONG_ID, "tok-a"), request("free", "tok-b"))))
          .as("busy")
          .isEmpty();

      assertThat(other.renew(kept, TTL)).as("the lease held over the same connection").isPresent();
      assertThat(other.status("free").holder()).as("nothing taken").isNull();
    }
  }

  private static LockRequest request(String lockId, String ownerToken) {
    return new LockRequest(lockId, ownerToken, TTL, "host/1/test");
  }
}
