package dev.locksmith.tcp;

import static dev.locksmith.testkit.ProviderFailures.failsWithin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lock server down at start, during an outage and back again, and a server that accepts
 * connections but never answers: creating the provider never needs the server, calls fail with one
 * line within the stated bound, and calls work again once the server is back, on the same provider.
 */
class OutageTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * The longest back-off between two connection attempts (1 s), plus a connection and Awaitility's
   * 100 ms poll: how soon after the server is back a call must work again.
   */
  private static final Duration RECOVERY = Duration.ofMillis(1500);

  private final List<AutoCloseable> closeAtEnd = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeAtEnd.size() - 1; i >= 0; i--) {
      closeAtEnd.get(i).close();
    }
  }

  /** A provider for {@code tcp://127.0.0.1:<port>} followed by {@code parameters}. */
  private LockProvider provider(int port, String parameters) {
    long start = System.nanoTime();
    LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + port + parameters);
    closeAtEnd.add(provider);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("creating the provider (never connects)")
        .isLessThan(Duration.ofSeconds(1));
    return provider;
  }

  /**
   * A loopback listener on a free port, closed after the test, with an accept queue of {@code
   * backlog}; nothing accepts from it unless the test does.
   */
  private ServerSocket listener(int backlog) throws IOException {
    ServerSocket listener = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
    closeAtEnd.add(listener);
    return listener;
  }

  private LockServer startServer(int port) throws IOException {
    LockServer server = LockServer.builder().port(port).build();
    closeAtEnd.add(server);
    server.start();
    return server;
  }

  @Test
  void createdWhileTheServerIsDownItFailsFastAndWorksOnceTheServerStarts() throws Exception {
    int port = LoopbackPorts.free();
    LockProvider provider = provider(port, "?connect-timeout=" + CONNECT_TIMEOUT.toMillis() + "ms");

    LockProviderException refused =
        failsWithin(CONNECT_TIMEOUT, () -> provider.tryAcquire(LockRequest.of("start", TTL)));
    assertThat(refused)
        .hasMessage("lock server 127.0.0.1:" + port + " refused the connection")
        .hasCauseInstanceOf(ConnectException.class);
    LockProviderException backingOff = failsWithin(CONNECT_TIMEOUT, () -> provider.status("start"));
    assertThat(backingOff.getMessage())
        .startsWith("lock server 127.0.0.1:" + port + " refused the connection; next attempt in ")
        .doesNotContain("\n");
    assertThat(backingOff).hasCauseInstanceOf(LockProviderException.class);

    startServer(port);
    LeaseGrant lease = firstGrant(provider, "start", "the server started");
    assertThat(provider.release(lease)).isTrue();
  }

  @Test
  void aServerStoppedAndStartedAgainOnTheSamePortServesTheSameProvider() throws Exception {
    int port = LoopbackPorts.free();
    LockProvider provider = provider(port, "?connect-timeout=" + CONNECT_TIMEOUT.toMillis() + "ms");
    LockServer server = startServer(port);
    LeaseGrant before = provider.tryAcquire(LockRequest.of("restart", TTL)).orElseThrow();

    server.close();
    server.awaitTermination();
    long down = System.nanoTime();
    long slowest = 0;
    for (int i = 0; i < 5; i++) {
      long start = System.nanoTime();
      LockProviderException e =
          failsWithin(CONNECT_TIMEOUT, () -> provider.tryAcquire(LockRequest.of("restart", TTL)));
      slowest = Math.max(slowest, System.nanoTime() - start);
      assertThat(e.getMessage()).contains("lock server 127.0.0.1:" + port).doesNotContain("\n");
    }
    assertThat(provider.renew(before, TTL)).as("lost with the connection").isEmpty();
    System.out.printf(
        "5 calls while down: slowest %.1f ms, %.1f ms in all%n",
        slowest / 1e6, (System.nanoTime() - down) / 1e6);

    startServer(port);
    LeaseGrant after = firstGrant(provider, "restart", "the restart");
    assertThat(after.fencingToken()).isGreaterThan(before.fencingToken());
    assertThat(provider.release(after)).isTrue();
  }

  @Test
  void aServerThatAcceptsButNeverAnswersFailsCallsWithinTheRequestTimeout() throws Exception {
    Duration requestTimeout = Duration.ofSeconds(1);
    // The kernel completes the connections; nothing reads or answers them.
    ServerSocket silent = listener(50);
    int port = silent.getLocalPort();
    LockProvider provider =
        provider(port, "?connect-timeout=1s&request-timeout=" + requestTimeout.toMillis() + "ms");

    LockProviderException e =
        failsNoSooner(
            "silent server: ACQUIRE",
            requestTimeout,
            requestTimeout.plusSeconds(1),
            () -> provider.tryAcquire(LockRequest.of("s", TTL)));
    assertThat(e)
        .hasMessage(
            "lock server 127.0.0.1:"
                + port
                + " did not answer ACQUIRE 's' within 1s (request-timeout)")
        .hasCauseInstanceOf(TimeoutException.class);
    // The connection is dropped one request-timeout after the ACQUIRE gave up (its CANCEL is not
    // answered either); a call pending then fails at that moment, which is sooner.
    assertThat(failsWithin(requestTimeout.plusSeconds(1), () -> provider.status("s")).getMessage())
        .containsAnyOf(
            "lock server 127.0.0.1:" + port + " did not answer STATUS 's' within 1s",
            "connection to lock server 127.0.0.1:"
                + port
                + " lost: no reply to an ACQUIRE or its CANCEL within 1s (request-timeout)");
  }

  @Test
  void withASecretASilentServerFailsTheConnectionWithinTheConnectTimeout() throws Exception {
    ServerSocket silent = listener(50);
    int port = silent.getLocalPort();
    LockProvider provider = provider(port, "?secret=s3cret&connect-timeout=1s&request-timeout=5s");

    LockProviderException e =
        failsNoSooner(
            "silent server with a secret: AUTH",
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            () -> provider.tryAcquire(LockRequest.of("s", TTL)));
    assertThat(e)
        .hasMessage(
            "lock server 127.0.0.1:" + port + " did not answer AUTH within 1s (connect-timeout)")
        .hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void aServerThatDoesNotAnswerTheConnectFailsCallsWithinTheConnectTimeout() throws Exception {
    // A listener that never accepts, with its accept queue full: the kernel drops further SYNs,
    // as a host behind a firewall that drops packets would.
    ServerSocket full = listener(1);
    int port = full.getLocalPort();
    boolean dropping = false;
    for (int i = 0; i < 16 && !dropping; i++) {
      Socket filler = new Socket();
      closeAtEnd.add(filler);
      try {
        filler.connect(full.getLocalSocketAddress(), 300);
      } catch (SocketTimeoutException e) {
        dropping = true;
      }
    }
    assertThat(dropping).as("connects time out once the accept queue is full").isTrue();
    LockProvider provider = provider(port, "?connect-timeout=1s&request-timeout=5s");

    LockProviderException e =
        failsNoSooner(
            "unanswered connect",
            Duration.ofMillis(990),
            Duration.ofSeconds(2),
            () -> provider.tryAcquire(LockRequest.of("t", TTL)));
    assertThat(e)
        .hasMessage(
            "lock server 127.0.0.1:"
                + port
                + " did not accept the connection within 1s (connect-timeout)");
  }

  @Test
  void callsThatComeWhileOneIsConnectingWaitForThatAttemptNotLonger() throws Exception {
    ServerSocket silent = listener(50);
    List<Socket> accepted = new CopyOnWriteArrayList<>();
    Thread acceptor =
        new Thread(
            () -> {
              try {
                while (true) {
                  accepted.add(silent.accept()); // held open, never read or answered
                }
              } catch (IOException e) {
                // closed by the test
              }
            },
            "silent-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    closeAtEnd.add(
        () -> {
          for (Socket socket : accepted) {
            socket.close();
          }
        });
    LockProvider provider =
        provider(silent.getLocalPort(), "?secret=s3cret&connect-timeout=1s&request-timeout=5s");

    ExecutorService callers = Executors.newFixedThreadPool(4);
    closeAtEnd.add(callers::shutdownNow);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<LockProviderException>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String id = "c" + i;
      calls.add(
          callers.submit(
              () -> {
                start.await();
                return failsWithin(
                    Duration.ofSeconds(2), () -> provider.tryAcquire(LockRequest.of(id, TTL)));
              }));
    }
    start.countDown();
    for (Future<LockProviderException> call : calls) {
      assertThat(call.get(10, TimeUnit.SECONDS).getMessage())
          .contains("did not answer AUTH within 1s (connect-timeout)");
    }
    assertThat(accepted).as("one connection attempt for the four calls").hasSize(1);
  }

  @Test
  void aServerThatRefusesConnectionsAtAdmissionIsBackedOffFromNotReconnectedOnEveryCall()
      throws Exception {
    // What a full server does at admission: one BYE line, then the connection is closed.
    assertBackedOffFrom(
        "* BYE too-many-connections\n",
        "refused the connection: server said BYE too-many-connections");
  }

  @Test
  void aServerThatClosesEveryConnectionAtOnceIsBackedOffFromNotReconnectedOnEveryCall()
      throws Exception {
    // A port forward or load balancer without a backend: it accepts and closes at once.
    assertBackedOffFrom("", "closed the connection before sending anything");
  }

  /**
   * Guards the back-off rule that only a connection on which the server sent nothing at all (or a
   * refusal at admission) counts as a failed attempt ({@code heardAnything}): a connection closed
   * after the server's shutdown line {@code * BYE shutting-down}, with no reply before it, is an
   * ordinary end, so a server that is back at once serves the very next call. Counted as a failed
   * attempt, the next call would fail with "... next attempt in N ms" instead.
   */
  @Test
  void aConnectionEndedByTheServersShutdownByeIsNotBackedOffFrom() throws Exception {
    ServerSocket listener = listener(50);
    AtomicInteger accepted = new AtomicInteger();
    Thread fake =
        new Thread(
            () -> {
              try {
                // A server stopping: its BYE and close, before it answered anything.
                try (Socket stopping = listener.accept()) {
                  accepted.incrementAndGet();
                  stopping.setSoTimeout(5_000);
                  stopping
                      .getOutputStream()
                      .write("* BYE shutting-down\n".getBytes(StandardCharsets.UTF_8));
                  // A FIN, then the client's lines read to its close, so no reset can overtake
                  // the BYE.
                  stopping.shutdownOutput();
                  stopping.getInputStream().transferTo(OutputStream.nullOutputStream());
                }
                // The server back: answers every STATUS, and QUIT as the server does.
                try (Socket back = listener.accept()) {
                  accepted.incrementAndGet();
                  back.setSoTimeout(5_000);
                  BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(back.getInputStream(), StandardCharsets.UTF_8));
                  OutputStream out = back.getOutputStream();
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    String[] words = line.split(" ");
                    boolean quit = words[1].equals("QUIT");
                    out.write(
                        (words[0] + (quit ? " BYE\n" : " FREE 0\n"))
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    if (quit) {
                      break;
                    }
                  }
                }
              } catch (IOException e) {
                // closed by the test
              }
            },
            "stopping-then-back");
    fake.setDaemon(true);
    fake.start();
    LockProvider provider = provider(listener.getLocalPort(), "?connect-timeout=1s");

    assertThat(failsWithin(Duration.ofSeconds(2), () -> provider.status("r")).getMessage())
        .contains("server said BYE shutting-down");
    assertThat(provider.status("r").currentHolder())
        .as("the next call, on a new connection made at once")
        .isEmpty();
    assertThat(accepted.get()).isEqualTo(2);
  }

  /**
   * Against a listener that writes {@code line} to every connection and closes it, makes 30 calls,
   * each of which must fail, in far less time than the back-off's first steps (100 + 200 + 400 ms):
   * without back-off each call would connect again. The last failure says {@code why} and when the
   * next attempt is due.
   */
  private void assertBackedOffFrom(String line, String why) throws IOException {
    ServerSocket listener = listener(50);
    AtomicInteger accepted = new AtomicInteger();
    Thread acceptor =
        new Thread(
            () -> {
              try {
                while (true) {
                  try (Socket socket = listener.accept()) {
                    accepted.incrementAndGet();
                    socket.getOutputStream().write(line.getBytes(StandardCharsets.UTF_8));
                  }
                }
              } catch (IOException e) {
                // closed by the test
              }
            },
            "closing-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    LockProvider provider = provider(listener.getLocalPort(), "");

    List<String> failures = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      failures.add(failsWithin(Duration.ofSeconds(2), () -> provider.status("r")).getMessage());
    }
    assertThat(accepted.get()).as("connections made for 30 calls").isBetween(1, 3);
    assertThat(failures.get(failures.size() - 1)).contains(why).contains("next attempt in");
  }

  /**
   * Runs {@code call}, which must fail within {@code bound} but no sooner than {@code atLeast}, and
   * prints how long {@code what} took.
   */
  private static LockProviderException failsNoSooner(
      String what, Duration atLeast, Duration bound, Callable<?> call) {
    long start = System.nanoTime();
    LockProviderException failure = failsWithin(bound, call);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    System.out.printf("%s failed after %d ms%n", what, took.toMillis());
    assertThat(took).as(what).isGreaterThanOrEqualTo(atLeast);
    return failure;
  }

  /**
   * Waits for the first grant of {@code lockId} once the server is listening (again) and prints how
   * long it took after {@code what}.
   */
  private static LeaseGrant firstGrant(LockProvider provider, String lockId, String what) {
    long up = System.nanoTime();
    LeaseGrant lease =
        await()
            .atMost(RECOVERY)
            .ignoreException(LockProviderException.class)
            .until(() -> provider.tryAcquire(LockRequest.of(lockId, TTL)), Optional::isPresent)
            .orElseThrow();
    System.out.printf("first grant %d ms after %s%n", (System.nanoTime() - up) / 1_000_000, what);
    return lease;
  }
}
