package dev.locksmith.tcp;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LockProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The test kit's conformance suite against an in-process lock server. */
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
}
