package dev.locksmith.tcp;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.LockProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The test kit's conformance suite against an in-process lock server, faults through a proxy. */
class TcpConformanceTest extends LockProviderContract {
  private static LockServer server;
  private static int port;

  @BeforeAll
  static void startServer() throws Exception {
    server = LockServer.builder().port(0).build();
    port = server.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create("tcp://127.0.0.1:" + port);
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    FaultProxy proxy = FaultProxy.start("127.0.0.1", port);
    return FaultyPath.through(
        proxy, LockProviders.create("tcp://127.0.0.1:" + proxy.port() + "?request-timeout=10s"));
  }
}
