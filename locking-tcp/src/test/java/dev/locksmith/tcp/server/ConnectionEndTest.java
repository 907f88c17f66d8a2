package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What happens to a connection's leases of running work when it closes: released at once when the
 * client ended it (QUIT, or the end of its input), since the client then knows; kept until their
 * end otherwise (a reset, or a close by the server), since the client may still take them for held.
 */
class ConnectionEndTest {
  private static final int TTL_MILLIS = 3_000;

  @RegisterExtension
  final RunningServer server = new RunningServer(b -> b.lineTimeout(Duration.ofMillis(500)));

  @Test
  void aQuitReleasesTheLeasesAtOnce() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient observer = new LineClient(server.port())) {
      acquire(holder, "quit");
      assertThat(holder.call("q QUIT")).isEqualTo("q BYE");

      await().atMost(Duration.ofSeconds(1)).until(() -> observer.status("quit").equals("s FREE 0"));
    }
  }

  @Test
  void anEndOfTheClientsInputReleasesTheLeasesAtOnce() throws Exception {
    try (LineClient observer = new LineClient(server.port())) {
      try (LineClient holder = new LineClient(server.port())) {
        acquire(holder, "closed");
      }

      await()
          .atMost(Duration.ofSeconds(1))
          .until(() -> observer.status("closed").equals("s FREE 0"));
    }
  }

  @Test
  void aResetKeepsTheLeasesUntilTheirEnd() throws Exception {
    try (LineClient observer = new LineClient(server.port())) {
      LineClient holder = new LineClient(server.port());
      long start = System.nanoTime();
      acquire(holder, "reset");
      holder.reset();

      assertKeptUntilItsEnd(observer, "reset", start);
    }
  }

  @Test
  void aCloseByTheServerKeepsTheLeasesUntilTheirEnd() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient observer = new LineClient(server.port())) {
      long start = System.nanoTime();
      acquire(holder, "stalled");
      holder.sendBytes("1 PING".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(holder.readUntilClosed()).isEqualTo("* BYE line-timeout");

      assertKeptUntilItsEnd(observer, "stalled", start);
    }
  }

  @Test
  void leasesKeptAfterACloseCountAgainstTheDetachedLimitAndBeyondItAreReleased() throws Exception {
    try (LockServer small = RunningServer.start(b -> b.maxDetachedLeases(1));
        LineClient observer = new LineClient(small.port())) {
      LineClient holder = new LineClient(small.port());
      acquire(holder, "first");
      acquire(holder, "second");
      holder.reset();

      await()
          .until(
              () -> {
                String stats = observer.call("n STATS");
                return stats.contains(" connections=1 ") && stats.contains(" held=1 detached=1 ");
              });
      assertThat(List.of(observer.status("first"), observer.status("second")))
          .as("one kept until its end, the other released at once")
          .anySatisfy(status -> assertThat(status).startsWith("s HELD"))
          .anySatisfy(status -> assertThat(status).isEqualTo("s FREE 0"));
    }
  }

  private static void acquire(LineClient holder, String lock) throws Exception {
    assertThat(holder.call("a ACQUIRE " + lock + " " + TTL_MILLIS + " 0 tok-" + lock))
        .startsWith("a OK");
  }

  /**
   * The lock stays held after its holder's connection closed, a waiter is not granted it, and it is
   * freed at the end of its ttl (counted from {@code start}, before the ACQUIRE was sent).
   */
  private static void assertKeptUntilItsEnd(LineClient observer, String lock, long start)
      throws Exception {
    await().until(() -> observer.call("c PING").equals("c PONG"));
    assertThat(observer.status(lock)).as("still held after the close").startsWith("s HELD");
    assertThat(observer.call("w ACQUIRE " + lock + " 1000 " + 2 * TTL_MILLIS + " tok-waiter"))
        .as("granted to the waiter")
        .startsWith("w OK");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("granted at the end of the closed connection's lease, not before")
        .isGreaterThanOrEqualTo(Duration.ofMillis(TTL_MILLIS));
  }
}
