package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A hostile client on the same network, with the server's secret on: connections that never
 * authenticate cannot lock real clients out, must authenticate in time, and wrong secrets are
 * slowed down and logged in summary. Clients come from several loopback addresses (127.0.0.x).
 */
class AuthHardeningTest {
  private static final String SECRET = "s3cret";

  @Test
  void silentConnectionsDoNotLockOutAClientWithTheSecret() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret(SECRET).maxConnections(64))) {
      int port = server.port();
      List<LineClient> silent = new ArrayList<>();
      try {
        int refused = 0;
        for (int i = 0; i < 100; i++) {
          LineClient c = new LineClient(port, "127.0.0.2");
          silent.add(c);
        }
        for (LineClient c : silent) {
          if (!c.silentFor(50)) {
            refused++;
          }
        }
        assertThat(refused).as("silent connections from one address refused").isGreaterThan(80);
        try (LineClient real = new LineClient(port, "127.0.0.1")) {
          assertThat(real.call("1 AUTH " + SECRET)).isEqualTo("1 OK");
          assertThat(real.call("2 ACQUIRE real 10000 0 t")).startsWith("2 OK t ");
        }
      } finally {
        for (LineClient c : silent) {
          c.close();
        }
      }
    }
  }

  @Test
  void thePreAuthBudgetIsApartFromTheConnectionsOfAuthenticatedClients() throws Exception {
    try (LockServer server =
        RunningServer.start(
            b ->
                b.secret(SECRET)
                    .maxConnections(4)
                    .maxUnauthenticated(16)
                    .maxUnauthenticatedPerAddress(4))) {
      int port = server.port();
      List<LineClient> clients = new ArrayList<>();
      try {
        // Each connection is known to be admitted once it is answered (before the next opens).
        for (int i = 0; i < 4; i++) {
          clients.add(admitted(port, "127.0.0.2"));
        }
        try (LineClient fifth = new LineClient(port, "127.0.0.2")) {
          assertThat(fifth.readUntilClosed())
              .isEqualTo("* BYE too-many-unauthenticated-from-address");
        }
        // Four addresses fill the pre-auth budget; a fifth address is refused.
        for (int a = 3; a <= 5; a++) {
          for (int i = 0; i < 4; i++) {
            clients.add(admitted(port, "127.0.0." + a));
          }
        }
        try (LineClient extra = new LineClient(port, "127.0.0.6")) {
          assertThat(extra.readUntilClosed()).isEqualTo("* BYE too-many-unauthenticated");
        }
        // Authenticating moves a connection to the other budget and frees its pre-auth place.
        for (int i = 0; i < 4; i++) {
          assertThat(clients.get(i).call("1 AUTH " + SECRET)).isEqualTo("1 OK");
        }
        try (LineClient next = new LineClient(port, "127.0.0.6")) {
          assertThat(next.call("1 AUTH " + SECRET))
              .isEqualTo("1 ERR LIMIT the server has 4 authenticated connections already");
          assertThat(next.readUntilClosed()).isEqualTo("* BYE too-many-connections");
        }
      } finally {
        for (LineClient c : clients) {
          c.close();
        }
      }
    }
  }

  private static LineClient admitted(int port, String from) throws Exception {
    LineClient c = new LineClient(port, from);
    assertThat(c.call("1 PING")).startsWith("1 ERR AUTH authentication required");
    return c;
  }

  @Test
  void connectionsThatDoNotAuthenticateInTimeAreClosed() throws Exception {
    try (LockServer server =
        RunningServer.start(b -> b.secret(SECRET).authTimeout(Duration.ofMillis(500)))) {
      int port = server.port();
      try (LineClient silent = new LineClient(port);
          LineClient chatty = new LineClient(port);
          LineClient trickler = new LineClient(port);
          LineClient real = new LineClient(port)) {
        assertThat(real.call("1 AUTH " + SECRET)).isEqualTo("1 OK");
        assertThat(chatty.call("1 PING")).startsWith("1 ERR AUTH authentication required");
        trickler.sendBytes("1 AU".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        long start = System.nanoTime();
        assertThat(silent.readUntilClosed()).isEqualTo("* BYE auth-timeout");
        assertThat(chatty.readUntilClosed()).isEqualTo("* BYE auth-timeout");
        assertThat(trickler.readUntilClosed()).isEqualTo("* BYE auth-timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(real.call("2 PING")).as("an authenticated client stays").isEqualTo("2 PONG");
      }
    }
  }

  @Test
  void wrongSecretsAreSlowedDownAndLoggedInSummary() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret(SECRET))) {
      int port = server.port();
      AtomicInteger attempts = new AtomicInteger();
      List<String> replies = new CopyOnWriteArrayList<>();
      guessFromFourThreads(
          i -> {
            try (LineClient c = new LineClient(port).readTimeout(10_000)) {
              attempts.incrementAndGet();
              replies.add(c.call("1 AUTH guess-" + i) + "\n" + c.read());
            }
          });
      assertThat(replies).allMatch(r -> r.matches("\\* DELAYED 1 \\d+\n1 ERR AUTH wrong secret.*"));
      assertThat(attempts.get())
          .as("wrong secrets one address got answered in 1.5 s")
          .isBetween(1, 16);
      ServerRuntime runtime = server.runtime();
      assertThat(runtime.metrics().refusedAuths.sum()).isEqualTo(attempts.get());
      assertThat(runtime.authThrottle().linesLogged())
          .as("log lines for them: the first, then one per minute")
          .isEqualTo(1);
      try (LineClient real = new LineClient(port)) {
        assertThat(real.call("1 AUTH " + SECRET))
            .as("the right secret is not delayed")
            .isEqualTo("1 OK");
        awaitOnlyOneAuthenticatedConnection(server);
      }
    }
  }

  /**
   * A guesser need not wait for the delayed answer: no OK within a few milliseconds says the secret
   * was wrong. It resets the connection and guesses again on a new one; the wrong secret's
   * connection still counts against its address until the delayed answer would have gone.
   */
  @Test
  void aGuesserThatResetsInsteadOfWaitingIsSlowedDownAsMuch() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret(SECRET))) {
      int port = server.port();
      AtomicInteger sent = new AtomicInteger();
      guessFromFourThreads(
          i -> {
            LineClient c = new LineClient(port);
            c.send("1 AUTH guess-" + i);
            sent.incrementAndGet();
            c.silentFor(10);
            c.reset();
          });
      assertThat(sent.get()).as("guesses sent").isGreaterThan(40);
      assertThat(server.runtime().metrics().refusedAuths.sum())
          .as("wrong secrets one address got judged in 1.5 s")
          .isBetween(1L, 16L);
      try (LineClient real = new LineClient(port, "127.0.0.2")) {
        assertThat(real.call("1 AUTH " + SECRET)).isEqualTo("1 OK");
        awaitOnlyOneAuthenticatedConnection(server);
      }
    }
  }

  /** Each guess's connection gave up its place in the server's budget once, at its answer. */
  private static void awaitOnlyOneAuthenticatedConnection(LockServer server) {
    ServerMetrics metrics = server.runtime().metrics();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(metrics.unauthenticated).as("unauthenticated connections").hasValue(0);
              assertThat(server.runtime().admission().addresses()).isEqualTo(1);
            });
    assertThat(metrics.authenticated).as("authenticated connections").hasValue(1);
  }

  /** One guess, numbered {@code i}. */
  @FunctionalInterface
  private interface Guess {
    void make(int i) throws IOException;
  }

  /** Makes guesses from four threads, one after another on each, for 1.5 s. */
  private static void guessFromFourThreads(Guess guess) throws Exception {
    long stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> guessers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        guessers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 100_000 && System.nanoTime() - stopAt < 0; i++) {
                    guess.make(i);
                  }
                  return null;
                }));
      }
      for (Future<?> guesser : guessers) {
        guesser.get(20, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theThrottleLogsEachAddressAtMostOncePerIntervalWithACount() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    AuthThrottle throttle = new AuthThrottle(Duration.ofMillis(300), lines::add);
    java.net.InetAddress attacker = java.net.InetAddress.getByName("10.0.0.5");
    java.net.InetAddress other = java.net.InetAddress.getByName("10.0.0.6");
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      delays.add(throttle.failed(attacker));
    }
    throttle.failed(other);
    assertThat(delays.subList(0, 6)).containsExactly(250L, 500L, 1000L, 2000L, 4000L, 5000L);
    assertThat(delays).allMatch(d -> d <= AuthThrottle.MAX_DELAY_MILLIS);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("Wrong secret from 10.0.0.5");
    assertThat(lines.get(1)).startsWith("Wrong secret from 10.0.0.6");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              throttle.sweep();
              return lines.size() == 3;
            });
    assertThat(lines.get(2))
        .startsWith("Refused 999 AUTH attempt(s) with a wrong secret from 10.0.0.5 in the last");
    throttle.sweep();
    assertThat(lines).as("nothing new to report").hasSize(3);
  }
}
