package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A renewal whose reply arrives more than a ttl after the lease's previous reply, while the server
 * still holds the renewed lease: the client must keep the lease it renewed, so that its release
 * frees the lock at once, and not forget it as one the server surely ended; also when the reply
 * came too late for the renewal, which then failed.
 */
class LateRenewalReplyTest {
  private static final Duration TTL = Duration.ofSeconds(1);

  /** The renewal lengthens the lease to this, so the server still holds it when the reply comes. */
  private static final Duration RENEWED_TTL = Duration.ofSeconds(30);

  /** The renewal's reply is held this long: past the grant's ttl and the client's 1 s grace. */
  private static final Duration REPLY_DELAY = Duration.ofMillis(2_500);

  @RegisterExtension final RunningServer server = new RunningServer();

  @Test
  void aRenewalAnsweredLateIsStillReleasedOnTheServer() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider =
            LockProviders.create(RunningServer.url(proxy, "?request-timeout=10s"));
        LockProvider observer = LockProviders.create(server.url())) {
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("late-renewal", TTL)).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, REPLY_DELAY);

      LeaseGrant renewed = provider.renew(grant, RENEWED_TTL).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);

      assertRenewedThenFreedByItsRelease(provider, observer, renewed);
    }
  }

  @Test
  void aRenewalWhoseReplyCameTooLateIsStillReleasedOnTheServer() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider provider =
            LockProviders.create(RunningServer.url(proxy, "?request-timeout=1s"));
        LockProvider observer = LockProviders.create(server.url())) {
      long start = System.nanoTime();
      LeaseGrant grant = provider.tryAcquire(LockRequest.of("timed-out", TTL)).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, REPLY_DELAY);
      assertThat(observer.status("timed-out").currentHolder()).isPresent();

      assertThatThrownBy(() -> provider.renew(grant, RENEWED_TTL))
          .isInstanceOf(LockProviderException.class);
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ZERO);
      // Past the grant's ttl and the client's grace, another grant on the connection lets the
      // client forget the leases it takes for ended.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> System.nanoTime() - start > TTL.plusSeconds(1).plusMillis(200).toNanos());
      LeaseGrant other = provider.tryAcquire(LockRequest.of("other", TTL)).orElseThrow();

      assertRenewedThenFreedByItsRelease(provider, observer, grant);
      provider.release(other);
    }
  }

  /**
   * The server still holds {@code lease}, renewed, and its release by its owner frees the lock at
   * once, not at the end of the renewed ttl.
   */
  private static void assertRenewedThenFreedByItsRelease(
      LockProvider provider, LockProvider observer, LeaseGrant lease) {
    assertThat(observer.status(lease.lockId()).currentHolder())
        .as("the server still holds the renewed lease")
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(lease.fencingToken()));
    assertThat(provider.release(lease)).as("released by its owner").isTrue();
    assertThat(observer.status(lease.lockId()).currentHolder())
        .as("freed at once, not held for the rest of the renewed ttl")
        .isEmpty();
  }
}
