package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  /**
   * Guards the hand-off's check that a waiter's connection is still open ({@link Session#live()}):
   * a waiter whose connection has reset, with its close still queued on the core thread behind the
   * release, is skipped and the next live waiter gets the lock at once. A grant into the dead
   * connection would become a lease of a connection the client did not end, kept until its TTL, and
   * the live waiter would wait that long.
   *
   * <p>With two event loops the core is the first; the holder's and the dead waiter's connections
   * are on the second (connections are spread in turn), whose reads go on while the test holds the
   * core busy: the release and then the waiter's close are queued there in that order.
   */
  @Test
  void aWaiterWhoseConnectionResetIsSkippedAndTheNextLiveWaiterIsGrantedAtOnce() throws Exception {
    try (LockServer twoLoops = RunningServer.start(b -> b.workerThreads(2));
        LineClient holder = new LineClient(twoLoops.port());
        LineClient live = new LineClient(twoLoops.port());
        LineClient dead = new LineClient(twoLoops.port())) {
      ServerMetrics metrics = twoLoops.runtime().metrics();
      assertThat(holder.call("a ACQUIRE skip 30000 0 tok-holder")).startsWith("a OK");
      dead.sendQueued("d ACQUIRE skip 30000 30000 tok-dead", holder, 1);
      live.sendQueued("w ACQUIRE skip 30000 30000 tok-live", holder, 2);

      whileCoreHeld(
          twoLoops,
          () -> {
            long requests = metrics.requests.sum();
            holder.send("r RELEASE skip tok-holder");
            await()
                .atMost(Duration.ofSeconds(5))
                .alias("the RELEASE read on the holder's loop, not the core's")
                .until(() -> metrics.requests.sum() == requests + 1);
            long connections = metrics.authenticated.get();
            dead.reset();
            await()
                .atMost(Duration.ofSeconds(5))
                .alias("the reset seen on the dead waiter's loop, not the core's")
                .until(() -> metrics.authenticated.get() == connections - 1);
          });

      assertThat(holder.read()).isEqualTo("r OK");
      assertThat(live.readTimeout(TTL_MILLIS).read())
          .as("the live waiter granted at once, not at the end of a lease given to the dead one")
          .startsWith("w OK tok-live ");
      assertThat(holder.status("skip")).startsWith("s HELD ").endsWith(" 0 -");
    }
  }

  /** What the test does on the other event loops while the core thread is held. */
  @FunctionalInterface
  private interface WhileHeld {
    void run() throws Exception;
  }

  /** Holds the server's core thread while {@code action} runs, then lets it go. */
  private static void whileCoreHeld(LockServer server, WhileHeld action) throws Exception {
    CountDownLatch coreBusy = new CountDownLatch(1);
    CountDownLatch freeCore = new CountDownLatch(1);
    assertThat(
            server
                .runtime()
                .onCore(
                    () -> {
                      coreBusy.countDown();
                      try {
                        freeCore.await(10, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }))
        .isTrue();
    try {
      assertThat(coreBusy.await(5, TimeUnit.SECONDS)).as("core thread held").isTrue();
      action.run();
    } finally {
      freeCore.countDown();
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

  /**
   * A QUIT answers the connection's waiting ACQUIREs CANCELLED before its BYE, so that the lock
   * goes to the next waiter: it went to the quitting connection, after its BYE, and came free again
   * only when that connection closed, a fencing token later. The core thread is held while the QUIT
   * and then the holder's RELEASE are read on the second event loop (the holder's and the quitter's
   * connections are the first and third, spread over two loops), so the core answers them in that
   * order, one after the other.
   */
  @Test
  void aQuitAnswersItsWaitsCancelledAndTheLockGoesToTheNextWaiter() throws Exception {
    try (LockServer twoLoops = RunningServer.start(b -> b.workerThreads(2));
        LineClient holder = new LineClient(twoLoops.port());
        LineClient next = new LineClient(twoLoops.port());
        LineClient quitter = new LineClient(twoLoops.port())) {
      ServerMetrics metrics = twoLoops.runtime().metrics();
      assertThat(holder.call("a ACQUIRE quit 30000 0 tok-holder")).startsWith("a OK");
      quitter.sendQueued("w ACQUIRE quit 30000 30000 tok-quitter", holder, 1);
      next.sendQueued("n ACQUIRE quit 30000 30000 tok-next", holder, 2);

      whileCoreHeld(
          twoLoops,
          () -> {
            long requests = metrics.requests.sum();
            quitter.send("q QUIT");
            await()
                .atMost(Duration.ofSeconds(5))
                .alias("the QUIT read on the second loop")
                .until(() -> metrics.requests.sum() == requests + 1);
            holder.send("r RELEASE quit tok-holder");
            await()
                .atMost(Duration.ofSeconds(5))
                .alias("the RELEASE read on the second loop")
                .until(() -> metrics.requests.sum() == requests + 2);
          });
      assertThat(holder.read()).isEqualTo("r OK");
      assertThat(quitter.read()).isEqualTo("w CANCELLED");
      assertThat(quitter.read()).isEqualTo("q BYE");
      assertThat(quitter.read()).as("nothing after BYE").isNull();
      assertThat(next.read()).startsWith("n OK tok-next");
    }
  }
}
