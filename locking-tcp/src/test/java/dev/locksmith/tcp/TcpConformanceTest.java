package dev.locksmith.tcp;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.FullContract;
import dev.locksmith.testkit.LockProviderContract;
import dev.locksmith.testkit.LoopbackPorts;
import dev.locksmith.testkit.StoreLifecycle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's conformance suite against an in-process lock server, faults through a proxy. The
 * server starts without a data directory; {@link #storeLifecycle()} restarts it on the same port,
 * adds a data directory, and drops it again, so later tests find it as it started.
 */
class TcpConformanceTest extends LockProviderContract implements FullContract {
  private static LockServer server;
  private static int port;
  private static @Nullable Path dataDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = LockServer.builder().port(LoopbackPorts.free()).build();
    port = server.start();
  }

  @AfterAll
  static void stopServer() throws IOException {
    server.close();
    deleteDataDir();
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

  /**
   * Restarts close the server and start a new one on the same port. Persistence is added by giving
   * it a new data directory; state is lost by deleting that directory and running without one again
   * (as an operator who drops {@code --data-dir} would).
   */
  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() throws IOException {
        restartServer();
      }

      @Override
      public void restartLosingState() throws IOException {
        server.close();
        deleteDataDir();
        restartServer();
      }

      @Override
      public void restartWithPersistenceAdded() throws IOException {
        if (dataDir == null) {
          server.close();
          dataDir = Files.createTempDirectory("locksmith-conformance-data");
        }
        restartServer();
      }
    };
  }

  private static void restartServer() throws IOException {
    server.close();
    server = LockServer.builder().port(port).dataDir(dataDir).build();
    server.start();
  }

  private static void deleteDataDir() throws IOException {
    Path dir = dataDir;
    dataDir = null;
    if (dir == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
