package dev.locksmith.tcp.server;

import dev.locksmith.testkit.FaultProxy;
import java.io.IOException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A lock server on a free loopback port for the tests of one class: registered on a static field it
 * runs for the whole class, on an instance field it is started afresh for each test.
 *
 * <pre>{@code
 * @RegisterExtension static final RunningServer server = new RunningServer();
 * @RegisterExtension final RunningServer server = new RunningServer(b -> b.maxErrors(3));
 * }</pre>
 */
public final class RunningServer
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final UnaryOperator<LockServerBuilder> settings;
  private LockServer server;
  private boolean perTest;

  /** A server with the default settings. */
  public RunningServer() {
    this(UnaryOperator.identity());
  }

  /** A server built with {@code settings} applied to a builder already on port 0. */
  public RunningServer(UnaryOperator<LockServerBuilder> settings) {
    this.settings = settings;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = start(settings);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stop();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    if (server == null) {
      perTest = true;
      server = start(settings);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (perTest) {
      stop();
    }
  }

  /** The running server. */
  public LockServer server() {
    return server;
  }

  /** The port the server listens on. */
  public int port() {
    return server.port();
  }

  /** {@code tcp://127.0.0.1:<port>} followed by {@code parameters} (such as {@code "?x=y"}). */
  public String url(String parameters) {
    return "tcp://127.0.0.1:" + port() + parameters;
  }

  /** {@code tcp://127.0.0.1:<port>}. */
  public String url() {
    return url("");
  }

  /** A fault proxy on a free loopback port in front of the server; the caller closes it. */
  public FaultProxy proxy() throws IOException {
    return FaultProxy.start("127.0.0.1", port());
  }

  /**
   * {@code tcp://127.0.0.1:<proxy-port>} followed by {@code parameters}: the server through {@code
   * proxy}.
   */
  public static String url(FaultProxy proxy, String parameters) {
    return "tcp://127.0.0.1:" + proxy.port() + parameters;
  }

  /**
   * A server of a test's own, started now on a free loopback port with {@code settings} applied to
   * a builder already on port 0; the caller closes it.
   *
   * <pre>{@code
   * try (LockServer server = RunningServer.start(b -> b.lineTimeout(Duration.ofSeconds(1)))) {
   *   try (LineClient c = new LineClient(server.port())) { ... }
   * }
   * }</pre>
   */
  public static LockServer start(UnaryOperator<LockServerBuilder> settings) throws IOException {
    LockServer server = settings.apply(LockServer.builder().port(0)).build();
    server.start();
    return server;
  }

  /** As {@link #start(UnaryOperator)}, with the default settings. */
  public static LockServer start() throws IOException {
    return start(UnaryOperator.identity());
  }

  private void stop() {
    server.close();
    server = null;
  }
}
