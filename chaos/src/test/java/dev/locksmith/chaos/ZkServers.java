package dev.locksmith.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.jspecify.annotations.Nullable;

/**
 * ZooKeeper servers in the test JVM, from Curator's {@code curator-test}: bound to 127.0.0.1 only
 * (client, quorum and election ports), with a tick of 200 ms so that sessions may be as short as
 * 400 ms.
 */
final class ZkServers {
  private static final int TICK_MILLIS = 200;

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
    try {
      return new Server(new TestingServer(spec(dataDir, false, -1), true));
    } catch (Exception e) {
      throw new IllegalStateException("cannot start ZooKeeper in " + dataDir, e);
    }
  }

  /** A started three-server ensemble on free loopback ports, with temporary data directories. */
  static TestingCluster cluster() {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      specs.add(spec(null, true, id));
    }
    TestingCluster cluster = new TestingCluster(specs);
    try {
      cluster.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start a ZooKeeper ensemble", e);
    }
    return cluster;
  }

  /** The instance that leads {@code cluster} now, asked with the {@code srvr} command. */
  static InstanceSpec leader(TestingCluster cluster) {
    for (InstanceSpec spec : cluster.getInstances()) {
      if (srvr(spec.getPort()).contains("Mode: leader")) {
        return spec;
      }
    }
    throw new IllegalStateException("no leader in " + cluster.getConnectString());
  }

  private static InstanceSpec spec(@Nullable Path dataDir, boolean deleteOnClose, int serverId) {
    return new InstanceSpec(
        dataDir == null ? null : dataDir.toFile(),
        -1,
        -1,
        -1,
        deleteOnClose,
        serverId,
        TICK_MILLIS,
        -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "60000"),
        "127.0.0.1");
  }

  private static String srvr(int port) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return "";
    }
  }
}
