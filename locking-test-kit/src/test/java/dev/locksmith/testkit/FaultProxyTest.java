package dev.locksmith.testkit;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.FaultProxy.Direction;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs {@link FaultProxy} between plain sockets on loopback: the test plays both the client and the
 * server, so it can see exactly what each side receives.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FaultProxyTest {
  private static final int READ_TIMEOUT_MILLIS = 2_000;
  private static final int QUIET_MILLIS = 200;
  private static final Duration DELAY = Duration.ofMillis(300);

  private final List<Socket> sockets = new ArrayList<>();
  private TestServer server;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    server = TestServer.start();
    proxy = FaultProxy.start("127.0.0.1", server.port());
  }

  @AfterEach
  void stop() {
    sockets.forEach(FaultProxyTest::closeQuietly);
    proxy.close();
    server.close();
  }

  @Test
  void bytesPassUnchangedBothWays() throws IOException {
    Link link = open();
    byte[] request = randomBytes(200_000, 1);
    byte[] reply = randomBytes(100_000, 2);

    link.client()
        .getOutputStream()
        .write(request); // the proxy holds what the server has not read yet
    assertThat(readExactly(link.peer(), request.length)).isEqualTo(request);
    link.peer().getOutputStream().write(reply);
    assertThat(readExactly(link.client(), reply.length)).isEqualTo(reply);

    assertThat(proxy.host()).isEqualTo("127.0.0.1");
    assertThat(proxy.connections()).isEqualTo(1);
    await().until(() -> proxy.forwarded(Direction.TO_SERVER) == request.length);
    await().until(() -> proxy.forwarded(Direction.TO_CLIENT) == reply.length);
  }

  @Test
  void freezingRepliesHoldsThemInOrderUntilThawWhileRequestsFlow() throws IOException {
    Link link = open();
    proxy.freeze(Direction.TO_CLIENT);

    send(link.peer(), "one\n");
    send(link.peer(), "two\n");
    send(link.peer(), "three\n");
    assertNothingArrives(link.client());
    assertForwarded(link.client(), link.peer(), "ping");
    assertThat(proxy.forwarded(Direction.TO_CLIENT)).isZero();
    assertThat(proxy.connections()).isEqualTo(1);

    proxy.thaw(Direction.TO_CLIENT);
    assertThat(read(link.client(), 14)).isEqualTo("one\ntwo\nthree\n");
    await().until(() -> proxy.forwarded(Direction.TO_CLIENT) == 14);
  }

  @Test
  void freezingRequestsHoldsThemOnNewConnectionsWithTheEndOfStreamAfterThem() throws IOException {
    proxy.freeze(Direction.TO_SERVER);
    Link link = open();

    send(link.client(), "req-1 ");
    send(link.client(), "req-2");
    link.client().shutdownOutput();
    assertNothingArrives(link.peer());
    assertForwarded(link.peer(), link.client(), "push");

    proxy.thaw();
    assertThat(read(link.peer(), 11)).isEqualTo("req-1 req-2");
    assertThat(link.peer().getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void delayHoldsEachChunkAtLeastThatLongInOrderAndZeroTurnsItOff() throws IOException {
    proxy.delay(Direction.TO_CLIENT, DELAY);
    Link link = open();

    long start = System.nanoTime();
    send(link.peer(), "a");
    send(link.peer(), "b");
    send(link.peer(), "c");
    assertThat(read(link.client(), 1)).isEqualTo("a");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(DELAY);
    assertThat(read(link.client(), 2)).isEqualTo("bc");

    assertForwarded(link.client(), link.peer(), "undelayed"); // the other direction is not delayed

    proxy.delay(Direction.TO_CLIENT, Duration.ZERO);
    start = System.nanoTime();
    assertForwarded(link.peer(), link.client(), "d");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DELAY);
  }

  @Test
  void aLostReplyReachesTheServerButResetsTheClient() throws IOException {
    Link link = open();
    proxy.loseNextReply();

    assertForwarded(link.client(), link.peer(), "LOCK x\n"); // the server acts on the request
    send(link.peer(), "OK 42\n");
    assertThat(outcome(link.client())).isEqualTo("reset");
    assertThat(outcome(link.peer())).isEqualTo("eof");
    await().until(() -> proxy.connections() == 0);
    assertThat(proxy.forwarded(Direction.TO_CLIENT)).isZero();

    Link link2 = open(); // only one reply is lost
    assertForwarded(link2.client(), link2.peer(), "LOCK y\n");
    assertForwarded(link2.peer(), link2.client(), "OK 43\n");
  }

  @Test
  void halfCloseEndsOneDirectionAndTheConnectionClosesWhenBothHaveEnded() throws IOException {
    Link link = open();

    proxy.halfClose(Direction.TO_SERVER);
    assertThat(outcome(link.peer())).isEqualTo("eof");
    assertForwarded(link.peer(), link.client(), "still here");
    send(link.client(), "discarded");
    assertThat(proxy.connections()).isEqualTo(1);

    proxy.halfClose(Direction.TO_CLIENT);
    assertThat(outcome(link.client())).isEqualTo("eof");
    await().until(() -> proxy.connections() == 0);
    assertThat(proxy.forwarded(Direction.TO_SERVER)).isZero();
  }

  @Test
  void anEndOfStreamIsPassedOnAsAHalfClose() throws IOException {
    Link link = open();

    link.client().shutdownOutput();
    assertThat(outcome(link.peer())).isEqualTo("eof");
    assertForwarded(link.peer(), link.client(), "bye");
    assertThat(proxy.connections()).isEqualTo(1);

    link.peer().close();
    assertThat(outcome(link.client())).isEqualTo("eof");
    await().until(() -> proxy.connections() == 0);
  }

  @Test
  void resetAllResetsBothSidesOfEveryConnectionAndKeepsAccepting() throws IOException {
    Link link1 = open();
    Link link2 = open();
    await().until(() -> proxy.connections() == 2);

    proxy.resetAll();
    assertThat(proxy.connections()).isZero();
    assertThat(
            List.of(
                outcome(link1.client()),
                outcome(link2.client()),
                outcome(link1.peer()),
                outcome(link2.peer())))
        .containsOnly("reset");

    Link link3 = open();
    assertForwarded(link3.client(), link3.peer(), "again");
  }

  @Test
  void anErrorOnOneConnectionClosesOnlyThatConnection() throws IOException {
    Link link1 = open();
    Link link2 = open();

    link1.client().setSoLinger(true, 0);
    link1.client().close(); // the client resets its connection
    assertThat(outcome(link1.peer())).isIn("reset", "eof");
    await().until(() -> proxy.connections() == 1);

    assertForwarded(link2.client(), link2.peer(), "ping");
    assertForwarded(link2.peer(), link2.client(), "pong");
  }

  @Test
  void aTargetThatRefusesClosesTheClient() throws IOException {
    int deadPort;
    try (ServerSocket gone = new ServerSocket(0, 1, loopback())) {
      deadPort = gone.getLocalPort();
    }
    try (FaultProxy dead = FaultProxy.start("localhost", deadPort)) {
      String outcome;
      try {
        outcome = outcome(connect(dead));
      } catch (SocketException e) {
        // The proxy's reset can reach the client while its connect is still returning.
        assertThat(e).hasMessageContaining("reset");
        outcome = "reset";
      }
      assertThat(outcome).isIn("reset", "eof");
      await().until(() -> dead.connections() == 0);
    }
  }

  @Test
  void refusesTargetsOffLoopbackAndBadPorts() {
    assertThatThrownBy(() -> FaultProxy.start("192.0.2.1", 6379))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loopback");
    assertThatThrownBy(() -> FaultProxy.start("0.0.0.0", 6379))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaultProxy.start("", 6379))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 65_536))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> proxy.delay(Direction.TO_SERVER, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closeClosesEveryConnectionAndStopsItsThreads() throws IOException {
    Link link1 = open();
    Link link2 = open();
    proxy.freeze(Direction.TO_SERVER);
    send(link2.client(), "held");
    await().until(() -> proxy.connections() == 2);
    String prefix = "fault-proxy-" + proxy.port() + "-";
    await().until(() -> proxyThreads(prefix).size() == 9); // accept, and four per connection
    assertThat(proxyThreads(prefix)).contains(prefix + "accept", prefix + "c2-to-server-write");

    proxy.close();
    assertThat(proxy.connections()).isZero();
    assertThat(proxyThreads(prefix)).isEmpty();
    for (Socket socket : List.of(link1.client(), link2.client(), link1.peer(), link2.peer())) {
      assertThat(outcome(socket)).isIn("eof", "reset");
    }
    assertThatThrownBy(() -> connect(proxy)).isInstanceOf(ConnectException.class);
    proxy.close(); // again: nothing happens
  }

  /** A connection through the proxy: the test's client socket and the server's end of it. */
  private record Link(Socket client, Socket peer) {}

  /** Connects a client through the proxy and takes the server's end of its connection. */
  private Link open() throws IOException {
    Socket client = connect(proxy);
    return new Link(client, server.accept());
  }

  private Socket connect(FaultProxy target) throws IOException {
    Socket socket = new Socket();
    sockets.add(socket);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    socket.connect(new InetSocketAddress(target.host(), target.port()), READ_TIMEOUT_MILLIS);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(US_ASCII));
  }

  /** Sends {@code text} on {@code from} and asserts that {@code to} receives it unchanged. */
  private static void assertForwarded(Socket from, Socket to, String text) throws IOException {
    send(from, text);
    assertThat(read(to, text.length())).isEqualTo(text);
  }

  private static String read(Socket socket, int length) throws IOException {
    return new String(readExactly(socket, length), US_ASCII);
  }

  private static byte[] readExactly(Socket socket, int length) throws IOException {
    byte[] bytes = socket.getInputStream().readNBytes(length);
    assertThat(bytes).as("bytes before the end of stream").hasSize(length);
    return bytes;
  }

  private static void assertNothingArrives(Socket socket) throws IOException {
    socket.setSoTimeout(QUIET_MILLIS);
    try {
      assertThatThrownBy(() -> socket.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
    } finally {
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    }
  }

  /** Reads once: {@code "eof"}, {@code "reset"}, {@code "timeout"} or {@code "data"}. */
  private static String outcome(Socket socket) {
    try {
      InputStream in = socket.getInputStream();
      return in.read() < 0 ? "eof" : "data";
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (SocketException e) {
      return "reset";
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static List<String> proxyThreads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .map(Thread::getName)
        .filter(name -> name.startsWith(prefix))
        .toList();
  }

  private static byte[] randomBytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static InetAddress loopback() throws IOException {
    return InetAddress.getByName("127.0.0.1");
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // best effort in clean-up
    }
  }

  /** A listener on 127.0.0.1 whose accepted sockets the test reads and writes as the server. */
  private static final class TestServer implements AutoCloseable {
    private final ServerSocket listener;
    private final LinkedBlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
    private final List<Socket> all = new ArrayList<>();

    private TestServer(ServerSocket listener) {
      this.listener = listener;
    }

    static TestServer start() throws IOException {
      TestServer server = new TestServer(new ServerSocket(0, 50, loopback()));
      Thread thread = new Thread(server::acceptLoop, "test-server-" + server.port());
      thread.setDaemon(true);
      thread.start();
      return server;
    }

    int port() {
      return listener.getLocalPort();
    }

    private void acceptLoop() {
      while (!listener.isClosed()) {
        try {
          Socket socket = listener.accept();
          socket.setTcpNoDelay(true);
          socket.setSoTimeout(READ_TIMEOUT_MILLIS);
          accepted.add(socket);
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    Socket accept() {
      Socket socket;
      try {
        socket = accepted.poll(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
      assertThat(socket).as("a connection from the proxy").isNotNull();
      all.add(socket);
      return socket;
    }

    @Override
    public void close() {
      closeQuietly(listener);
      all.forEach(FaultProxyTest::closeQuietly);
      accepted.forEach(FaultProxyTest::closeQuietly);
    }
  }
}
