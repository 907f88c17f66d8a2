package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.LoopbackPorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecurityTest {
  private static final Duration TTL = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void withAuthNothingButAuthIsAllowedFirstAndAWrongSecretCloses() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret("s3cret"))) {
      int port = server.port();
      try (Socket socket = new Socket("127.0.0.1", port)) {
        BufferedReader in = lines(socket);
        var out = socket.getOutputStream();
        out.write(
            "1 PING\n2 STATUS x\n3 AUTH s3cret\n4 PING\n5 AUTH nope\n"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(in.readLine()).startsWith("1 ERR AUTH authentication required");
        assertThat(in.readLine()).startsWith("2 ERR AUTH authentication required");
        assertThat(in.readLine()).isEqualTo("3 OK");
        assertThat(in.readLine()).isEqualTo("4 PONG");
        assertThat(in.readLine()).isEqualTo("* DELAYED 5 250");
        assertThat(in.readLine()).startsWith("5 ERR AUTH wrong secret");
        assertThat(in.readLine()).isNull();
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        BufferedReader in = lines(socket);
        socket.getOutputStream().write("1 AUTH wrong\n2 PING\n".getBytes(StandardCharsets.UTF_8));
        assertThat(in.readLine()).isEqualTo("* DELAYED 1 500");
        assertThat(in.readLine()).startsWith("1 ERR AUTH wrong secret");
        assertThat(in.readLine()).isNull();
      }
    }
  }

  /**
   * Wrong secrets in a row from one address are answered ever later (250 ms doubling), and the
   * fourth in a row after 2 s: more than the provider's 1 s connect-timeout. The server says at
   * once that the answer is delayed, so the provider waits for it and reports the rejected secret,
   * not a server that did not answer.
   */
  @Test
  void aWrongSecretAnsweredAfterTheConnectTimeoutIsStillReportedAsRejected() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret("s3cret"))) {
      int port = server.port();
      sendThreeWrongSecrets(port);
      try (LockProvider provider =
          LockProviders.create(
              "tcp://127.0.0.1:" + port + "?secret=wrong&connect-timeout=1s&request-timeout=1s")) {
        assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("late-answer", TTL)))
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("rejected the secret");
      }
    }
  }

  /**
   * Sends three wrong secrets in a row from this address, each answered later than the one before
   * (250, 500 and 1000 ms), so that the server answers the next one after 2 s.
   */
  private static void sendThreeWrongSecrets(int port) throws IOException {
    for (long delay = 250; delay <= 1000; delay *= 2) {
      try (Socket socket = new Socket("127.0.0.1", port)) {
        BufferedReader in = lines(socket);
        socket.getOutputStream().write("1 AUTH wrong\n".getBytes(StandardCharsets.UTF_8));
        assertThat(in.readLine()).isEqualTo("* DELAYED 1 " + delay);
        assertThat(in.readLine()).startsWith("1 ERR AUTH wrong secret");
      }
    }
  }

  /**
   * Guards the bound of a caller that waits for another caller's connection attempt ({@code
   * Connector.awaitAttempt}): it covers an AUTH delay the server announced ({@code * DELAYED}) as
   * well as twice {@code connect-timeout}. Here a fourth wrong secret in a row is answered after 2
   * s, four times the 500 ms connect-timeout: every caller that shared the attempt gets its answer,
   * the rejected secret, soon after it comes. Cut at twice connect-timeout, the callers that joined
   * the attempt failed after 1 s with "did not complete the connection within 500ms", an outage
   * that was none.
   */
  @Test
  void callsSharingAnAttemptThatWaitsForAnAnnouncedAuthDelayGetItsAnswer() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret("s3cret"))) {
      int port = server.port();
      sendThreeWrongSecrets(port);
      ExecutorService callers = Executors.newFixedThreadPool(4);
      try (LockProvider provider =
          LockProviders.create(
              "tcp://127.0.0.1:"
                  + port
                  + "?secret=wrong&connect-timeout=500ms&request-timeout=1s")) {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Throwable>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          String lock = "shared-" + i;
          calls.add(
              callers.submit(
                  () -> {
                    start.await();
                    long began = System.nanoTime();
                    Throwable failure =
                        catchThrowable(() -> provider.tryAcquire(LockRequest.of(lock, TTL)));
                    assertThat(Duration.ofNanos(System.nanoTime() - began))
                        .as("the 2 s delay, plus the wait for a thread and a connection")
                        .isLessThan(Duration.ofSeconds(4));
                    return failure;
                  }));
        }
        start.countDown();
        for (Future<Throwable> call : calls) {
          assertThat(call.get(10, TimeUnit.SECONDS))
              .isInstanceOf(LockConfigurationException.class)
              .hasMessageContaining("rejected the secret");
        }
      } finally {
        callers.shutdownNow();
      }
    }
  }

  /**
   * An {@code AUTH} line cannot carry surrounding whitespace (the client strips its secret, the
   * server strips the line), so a secret given to the builder with it, as read from an environment
   * variable or a file with a trailing newline, is stripped the same way rather than matching
   * nothing.
   */
  @Test
  void aSecretGivenWithSurroundingWhitespaceIsStripped() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret(" s3cret\n"))) {
      try (LockProvider provider =
          LockProviders.create("tcp://127.0.0.1:" + server.port() + "?secret=s3cret")) {
        LeaseGrant lease = provider.tryAcquire(LockRequest.of("a", TTL)).orElseThrow();
        assertThat(provider.release(lease)).isTrue();
      }
    }
    assertThatThrownBy(() -> LockServer.builder().secret(" \n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shared secret is empty");
  }

  /**
   * An {@code AUTH} line ends at the first line break: a secret of two lines matched nothing (the
   * server hashed both lines, the client sent the second as a request of its own, which a server
   * without a secret answered and the client logged). Both sides refuse it where it is given.
   */
  @Test
  void aSecretOfSeveralLinesIsRefusedWhereItIsGiven() throws Exception {
    Path twoLines = Files.writeString(dir.resolve("two-lines"), "first-line\nsecond part\n");
    assertThatThrownBy(() -> LockServer.builder().secretFile(twoLines))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(twoLines.toString())
        .hasMessageContaining("line break")
        .hasMessageNotContaining("second part");
    assertThatThrownBy(() -> LockServer.builder().secret("s3cret\rmore"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control character");
    assertThatThrownBy(() -> LockProviders.create("tcp://127.0.0.1:1?secret-file=" + twoLines))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'secret-file'")
        .hasMessageContaining("line break")
        .hasMessageNotContaining("second part");
    assertThatThrownBy(() -> LockProviders.create("tcp://127.0.0.1:1?secret=a%0Ab"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'secret'")
        .hasMessageContaining("line break");
  }

  @Test
  void providerAuthenticatesWithASecretFile() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "s3cret\n");
    Path wrong = Files.writeString(dir.resolve("wrong"), "guess\n");
    try (LockServer server = LockServer.builder().port(0).secretFile(secret).build()) {
      int port = server.start();
      try (LockProvider provider =
          LockProviders.create("tcp://127.0.0.1:" + port + "?secret-file=" + secret)) {
        LeaseGrant lease = provider.tryAcquire(LockRequest.of("a", TTL)).orElseThrow();
        assertThat(provider.release(lease)).isTrue();
      }
      try (LockProvider rejected =
          LockProviders.create("tcp://127.0.0.1:" + port + "?secret-file=" + wrong)) {
        assertThatThrownBy(() -> rejected.tryAcquire(LockRequest.of("a", TTL)))
            .as("created without connecting; the first call is refused")
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("rejected the secret");
      }
      try (LockProvider anonymous = LockProviders.create("tcp://127.0.0.1:" + port)) {
        assertThatThrownBy(() -> anonymous.tryAcquire(LockRequest.of("a", TTL)))
            .as("the server answered: a URL to fix, not an outage")
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("ERR AUTH authentication required")
            .hasMessageContaining("add secret-file=PATH to the URL");
      }
    }
  }

  @Test
  void aFullServerIsAnOutageNotARejectedSecret() throws Exception {
    try (LockServer server =
        LockServer.builder().port(0).secret("s3cret").maxConnections(1).build()) {
      int port = server.start();
      try (LockProvider first = LockProviders.create("tcp://127.0.0.1:" + port + "?secret=s3cret");
          LockProvider second =
              LockProviders.create("tcp://127.0.0.1:" + port + "?secret=s3cret")) {
        assertThat(first.tryAcquire(LockRequest.of("a", TTL))).isPresent();
        assertThatThrownBy(() -> second.tryAcquire(LockRequest.of("b", TTL)))
            .isInstanceOf(LockProviderException.class)
            .isNotInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("LIMIT")
            .hasMessageNotContaining("secret");
      }
    }
  }

  @Test
  void withoutASecretAFullServerIsAnOutageThatEndsWhenAPlaceFrees() throws Exception {
    try (LockServer server = LockServer.builder().port(0).maxConnections(1).build()) {
      int port = server.start();
      try (LockProvider first = LockProviders.create("tcp://127.0.0.1:" + port);
          LockProvider second = LockProviders.create("tcp://127.0.0.1:" + port)) {
        assertThat(first.tryAcquire(LockRequest.of("a", TTL))).isPresent();
        assertThatThrownBy(() -> second.tryAcquire(LockRequest.of("b", TTL)))
            .isInstanceOf(LockProviderException.class)
            .isNotInstanceOf(LockConfigurationException.class);
        first.close();
        assertThat(
                await()
                    .atMost(Duration.ofSeconds(5))
                    .ignoreException(LockProviderException.class)
                    .until(() -> second.tryAcquire(LockRequest.of("b", TTL)), o -> o.isPresent()))
            .isPresent();
      }
    }
  }

  @Test
  void aSecretRejectedOnReconnectBacksOffWithAClearError() throws Exception {
    int port;
    LockProvider provider;
    try (LockServer server =
        LockServer.builder().port(LoopbackPorts.free()).secret("old").build()) {
      port = server.start();
      provider = LockProviders.create("tcp://127.0.0.1:" + port + "?secret=old");
      assertThat(provider.tryAcquire(LockRequest.of("a", TTL))).isPresent();
    }
    try (LockServer rotated = LockServer.builder().port(port).secret("new").build();
        provider) {
      rotated.start();
      assertThatThrownBy(
              () ->
                  await()
                      .atMost(Duration.ofSeconds(10))
                      .ignoreExceptionsMatching(e -> !(e instanceof LockConfigurationException))
                      .until(() -> provider.tryAcquire(LockRequest.of("a", TTL)).isPresent()))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("rejected the secret");
      for (int i = 0; i < 5; i++) {
        assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("a", TTL)))
            .as("fails fast while backing off instead of reconnecting")
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("rejected the secret")
            .hasMessageContaining("next attempt in");
      }
    }
  }

  @Test
  void withAuthOffASecretIsAcceptedAndNotNeeded() throws Exception {
    try (LockServer server = RunningServer.start()) {
      int port = server.port();
      try (LockProvider with =
              LockProviders.create("tcp://127.0.0.1:" + port + "?secret=anything");
          LockProvider without = LockProviders.create("tcp://127.0.0.1:" + port)) {
        assertThat(with.tryAcquire(LockRequest.of("a", TTL))).isPresent();
        assertThat(without.tryAcquire(LockRequest.of("b", TTL))).isPresent();
      }
    }
  }

  @Test
  void tlsWithASelfSignedCertificate() throws Exception {
    TestCerts certs = TestCerts.create(dir);
    try (LockServer server =
        RunningServer.start(b -> b.tls(certs.cert(), certs.key()).secret("s3cret"))) {
      int port = server.port();
      try (LockProvider a =
              LockProviders.create(
                  "tcp://127.0.0.1:"
                      + port
                      + "?tls=true&tls-ca="
                      + certs.cert()
                      + "&secret=s3cret");
          LockProvider b =
              LockProviders.create(
                  "tcp://localhost:" + port + "?tls-ca=" + certs.cert() + "&secret=s3cret")) {
        assertThat(a.description()).endsWith("(tls)");
        LeaseGrant lease = a.tryAcquire(LockRequest.of("tls", TTL)).orElseThrow();
        assertThat(b.tryAcquire(LockRequest.of("tls", TTL))).isEmpty();
        assertThat(b.status("tls").holder().fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(a.release(lease)).isTrue();
      }
      try (LockProvider untrusting =
          LockProviders.create("tcp://127.0.0.1:" + port + "?tls=true&secret=s3cret")) {
        assertThatThrownBy(() -> untrusting.tryAcquire(LockRequest.of("tls", TTL)))
            .as("the JVM's trust store does not trust a self-signed certificate")
            .isInstanceOf(LockProviderException.class)
            .hasMessageStartingWith("TLS handshake with lock server 127.0.0.1:" + port)
            .message()
            .doesNotContain("\n");
      }
      try (LockProvider plain =
          LockProviders.create("tcp://127.0.0.1:" + port + "?secret=s3cret&request-timeout=2s")) {
        assertThatThrownBy(() -> plain.tryAcquire(LockRequest.of("tls", TTL)))
            .as("a plain client cannot talk to a TLS server")
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("127.0.0.1:" + port);
      }
    }
  }

  @Test
  void tlsClientsVerifyTheServerAgainstTheirCa() throws Exception {
    Path serverDir = Files.createDirectories(dir.resolve("server"));
    Path otherDir = Files.createDirectories(dir.resolve("other"));
    TestCerts certs = TestCerts.create(serverDir);
    TestCerts otherCa = TestCerts.create(otherDir);
    try (LockServer server = RunningServer.start(b -> b.tls(certs.cert(), certs.key()))) {
      int port = server.port();
      try (LockProvider verified =
          LockProviders.create("tcp://localhost:" + port + "?tls-ca=" + certs.cert())) {
        LeaseGrant lease = verified.tryAcquire(LockRequest.of("verified", TTL)).orElseThrow();
        assertThat(verified.release(lease)).isTrue();
      }
      try (LockProvider other =
          LockProviders.create("tcp://localhost:" + port + "?tls-ca=" + otherCa.cert())) {
        assertThatThrownBy(() -> other.tryAcquire(LockRequest.of("verified", TTL)))
            .as("a certificate the client's CA did not sign")
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("TLS handshake with lock server localhost:" + port + " (tls)")
            .hasMessageContaining("failed");
      }
    }
  }

  @Test
  void aTlsClientTricklingARecordThatNeverEndsIsCutByTheLineTimeout() throws Exception {
    TestCerts certs = TestCerts.create(dir);
    try (LockServer server =
        RunningServer.start(
            b -> b.tls(certs.cert(), certs.key()).lineTimeout(Duration.ofSeconds(1)))) {
      int port = server.port();
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      try (InputStream pem = Files.newInputStream(certs.cert())) {
        trusted.setCertificateEntry(
            "server", CertificateFactory.getInstance("X.509").generateCertificate(pem));
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      try (Socket raw = new Socket("127.0.0.1", port);
          SSLSocket tls =
              (SSLSocket) context.getSocketFactory().createSocket(raw, "localhost", port, false)) {
        tls.setSoTimeout(5000);
        tls.getOutputStream().write("1 PING\n".getBytes(StandardCharsets.US_ASCII));
        tls.getOutputStream().flush();
        assertThat(
                new BufferedReader(
                        new InputStreamReader(tls.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine())
            .isEqualTo("1 PONG");
        // Under the TLS layer: the header of an application-data record of 100 bytes, then its
        // bytes one every 200 ms, so nothing decrypted ever reaches the line decoder.
        OutputStream out = raw.getOutputStream();
        out.write(new byte[] {0x17, 0x03, 0x03, 0x00, 0x64});
        out.flush();
        long start = System.nanoTime();
        raw.setSoTimeout(200);
        boolean closed = false;
        for (int i = 0; i < 40 && !closed; i++) {
          try {
            out.write(0);
            out.flush();
            closed = drainedToEnd(raw.getInputStream());
          } catch (IOException e) {
            closed = true; // reset by the server
          }
        }
        assertThat(closed).as("closed by the server").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      }
    }
  }

  /** Reads what has arrived; true at the end of the stream, false when nothing came in time. */
  private static boolean drainedToEnd(InputStream in) throws IOException {
    byte[] buffer = new byte[4096];
    try {
      while (true) {
        if (in.read(buffer) < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    }
  }

  @Test
  void aPlainClientToATlsServerIsToldClearly() throws Exception {
    TestCerts certs = TestCerts.create(dir);
    try (LockServer server = RunningServer.start(b -> b.tls(certs.cert(), certs.key()))) {
      int port = server.port();
      try (Socket socket = new Socket("127.0.0.1", port)) {
        BufferedReader in = lines(socket);
        socket.getOutputStream().write("1 PING\n".getBytes(StandardCharsets.UTF_8));
        assertThat(in.readLine()).startsWith("* ERR TLS_REQUIRED this server speaks TLS only");
        assertThat(in.readLine()).isEqualTo("* BYE tls-required");
        assertThat(in.readLine()).isNull();
      }
      try (LockProvider plain = LockProviders.create("tcp://127.0.0.1:" + port)) {
        assertThatThrownBy(() -> plain.tryAcquire(LockRequest.of("plain", TTL)))
            .isInstanceOf(LockProviderException.class)
            .hasMessageContaining("the server speaks TLS only; add tls=true");
      }
    }
  }

  @Test
  void aTlsClientToAPlainServerIsToldClearly() throws Exception {
    TestCerts certs = TestCerts.create(dir);
    try (LockServer server = RunningServer.start();
        LockProvider tls =
            LockProviders.create(
                "tcp://127.0.0.1:"
                    + server.port()
                    + "?tls=true&tls-ca="
                    + certs.cert()
                    + "&connect-timeout=10s")) {
      assertThatThrownBy(() -> tls.tryAcquire(LockRequest.of("tls-to-plain", TTL)))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("lock server 127.0.0.1:" + server.port())
          .hasMessageContaining("does not speak TLS; remove tls=true (and tls-ca) from the URL")
          .message()
          .doesNotContain("\n");
    }
  }

  /** The lines the server sends on a raw socket; a read waits at most 5 s. */
  private static BufferedReader lines(Socket socket) throws IOException {
    socket.setSoTimeout(5000);
    return new BufferedReader(
        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
  }
}
