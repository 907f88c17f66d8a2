package dev.locksmith.chaos;

import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;

/**
 * A ZooKeeper server in the test JVM, from {@link TestZooKeeper} (127.0.0.1 only, a tick of 200 ms
 * so that sessions may be as short as 400 ms), that the chaos scenarios stop and start again.
 */
final class ZkServers {
  private ZkServers() {}

  /** A single server that keeps its data directory, so it can be stopped and started again. */
  static final class Server implements AutoCloseable {
    private final TestingServer server;

    private Server(TestingServer server) {
      this.server = server;
    }

    /** Its client port on 127.0.0.1. */
    int port() {
      return server.getPort();
    }

    /** Stops it; its data stays. */
    void stop() {
      try {
        server.stop();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot stop ZooKeeper on port " + port(), e);
      }
    }

    /** Starts it again on the same port with the same data. */
    void start() {
      try {
        server.restart();
      } catch (Exception e) {
        throw new IllegalStateException("cannot restart ZooKeeper on port " + port(), e);
      }
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot close ZooKeeper on port " + port(), e);
      }
    }
  }

  /** A started single server on a free loopback port, its data in {@code dataDir}. */
  static Server server(Path dataDir) {
    return new Server(TestZooKeeper.start(dataDir));
  }
}
