package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The leases a connection records when a renewal's reply is handled late, after a release of the
 * same lease started or ended (a RENEW answered OK just before the server applied the RELEASE): the
 * renewal neither brings a released lease back nor clears its release mark, so a connection that
 * drops then reports nothing lost. Runs the connection's handler on Netty's embedded channel.
 */
class ClientConnectionLeasesTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  private final List<LeaseGrant> lost = new CopyOnWriteArrayList<>();
  private final ClientConnection connection =
      new ClientConnection("lock server test", new AtomicLong(), lost::add, 5_000);
  private final EmbeddedChannel channel = new EmbeddedChannel(connection);

  @Test
  void aRenewalHandledAfterTheReleaseDoesNotRecordTheLeaseAgain() {
    LeaseGrant lease = lease("late-renewal");
    connection.leases().granted(lease, System.nanoTime(), false);
    assertThat(connection.leases().startRelease(lease.ownerToken(), lease.lockId())).isTrue();
    connection.leases().forget(lease.ownerToken()); // the release's reply

    connection.leases().renewed(renewedOf(lease), System.nanoTime(), false);

    assertThat(connection.leases().count()).isZero();
    assertThat(connection.leases().holds(lease.ownerToken(), lease.lockId())).isFalse();
    channel.close();
    assertThat(lost).isEmpty();
  }

  @Test
  void aRenewalHandledWhileTheReleaseIsInFlightKeepsItsMark() {
    LeaseGrant lease = lease("renewal-during-release");
    connection.leases().granted(lease, System.nanoTime(), false);
    assertThat(connection.leases().startRelease(lease.ownerToken(), lease.lockId())).isTrue();

    connection.leases().renewed(renewedOf(lease), System.nanoTime(), false);
    channel.close();

    assertThat(lost).as("released with the connection, not lost").isEmpty();
  }

  @Test
  void aRenewedLeaseOfRunningWorkIsLostWithItsConnection() {
    LeaseGrant lease = lease("running");
    connection.leases().granted(lease, System.nanoTime(), false);

    connection.leases().renewed(renewedOf(lease), System.nanoTime(), false);
    channel.close();

    assertThat(lost).singleElement().satisfies(l -> assertThat(l.lockId()).isEqualTo("running"));
  }

  private static LeaseGrant lease(String lockId) {
    return new LeaseGrant(lockId, lockId + "-token", 7, TTL, System.nanoTime() + TTL.toNanos());
  }

  private static LeaseGrant renewedOf(LeaseGrant lease) {
    return lease.renewed(TTL, System.nanoTime() + TTL.toNanos());
  }
}
