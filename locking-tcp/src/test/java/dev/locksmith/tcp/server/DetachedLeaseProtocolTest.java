package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code HOLD}: a lease detached from its connection, on the wire. */
class DetachedLeaseProtocolTest {
  @RegisterExtension final RunningServer server = new RunningServer(b -> b.maxDetachedLeases(2));

  @Test
  void aHeldLeaseStaysUntilItsEndAfterItsConnectionCloses() throws Exception {
    int port = server.port();
    try (LineClient observer = new LineClient(port)) {
      LineClient holder = new LineClient(port);
      assertThat(holder.call("1 ACQUIRE job 60000 0 t1 host/1")).startsWith("1 OK t1 ");
      assertThat(holder.call("2 ACQUIRE work 60000 0 t2")).startsWith("2 OK t2 ");
      long held = System.nanoTime();
      assertThat(holder.call("3 HOLD job t1 3000")).matches("3 OK t1 \\d+ 3000");
      assertThat(holder.call("4 HOLD job other 1500")).isEqualTo("4 NOTHELD");
      assertThat(observer.call("1 HOLD job t1 1500"))
          .as("only its own connection may touch it while that lives")
          .isEqualTo("1 NOTHELD");
      assertThat(observer.call("2 STATS")).contains(" held=2 detached=1 ");
      holder.close();
      await().until(() -> observer.status("work").equals("s FREE 0"));
      assertThat(observer.call("3 STATUS job")).matches("3 HELD \\d+ \\d+ 0 host/1");
      assertThat(observer.call("4 RELEASE job t1"))
          .as("nobody may release it after its connection closed")
          .isEqualTo("4 NOTHELD");
      assertThat(observer.call("5 ACQUIRE job 60000 10000 t3")).startsWith("5 OK t3 ");
      assertThat(Duration.ofNanos(System.nanoTime() - held))
          .as("granted when the held lease ended, not at its 60 s ttl")
          .isBetween(Duration.ofMillis(3000), Duration.ofSeconds(9));
      assertThat(observer.call("6 STATS")).contains(" held=1 detached=0 ");
    }
  }

  @Test
  void itsOwnConnectionMayStillRenewAndReleaseIt() throws Exception {
    try (LineClient c = new LineClient(server.port());
        LineClient observer = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE a 60000 0 t")).startsWith("1 OK t ");
      assertThat(c.call("2 HOLD a t 60000")).startsWith("2 OK t ");
      assertThat(c.call("3 RENEW a t 30000")).startsWith("3 OK t ");
      assertThat(c.call("4 RELEASE a t")).isEqualTo("4 OK");
      assertThat(observer.call("1 STATUS a")).isEqualTo("1 FREE 0");
      assertThat(observer.call("2 STATS")).contains(" held=0 detached=0 ");
    }
  }

  @Test
  void detachedLeasesAreLimited() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      for (int i = 1; i <= 3; i++) {
        assertThat(c.call("a" + i + " ACQUIRE d" + i + " 60000 0 t" + i))
            .startsWith("a" + i + " OK");
      }
      assertThat(c.call("1 HOLD d1 t1 60000")).startsWith("1 OK");
      assertThat(c.call("2 HOLD d2 t2 60000")).startsWith("2 OK");
      assertThat(c.call("3 HOLD d3 t3 60000"))
          .isEqualTo(
              "3 ERR LIMIT the server already keeps 2 detached leases; the lease is unchanged");
      assertThat(c.call("4 HOLD d1 t1 1000")).as("holding again counts once").startsWith("4 OK");
      assertThat(c.call("5 RELEASE d2 t2")).isEqualTo("5 OK");
      assertThat(c.call("6 HOLD d3 t3 60000")).startsWith("6 OK");
    }
  }
}
