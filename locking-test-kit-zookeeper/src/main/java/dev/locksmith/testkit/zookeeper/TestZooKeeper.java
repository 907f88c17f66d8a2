package dev.locksmith.testkit.zookeeper;

import dev.locksmith.testkit.LoopbackPorts;
import java.io.File;
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
 * ZooKeeper servers for tests, from Curator's {@code curator-test}, in the test's JVM: every port
 * (client, quorum and election) on 127.0.0.1 only, from {@link LoopbackPorts} (below the system's
 * ephemeral range, so no outgoing connection takes a member's port before it binds it), a tick of
 * 200 ms so sessions may be as short as 400 ms, and a maximum session timeout of 60 s.
 *
 * <p>A member of an ensemble whose election port is taken tries to bind it every second until it is
 * free (the system property {@code zookeeper.electionPortBindRetry} is 0 unless set before this
 * class loads), where ZooKeeper would give up after three tries and end the JVM.
 *
 * <p>A {@link TestingServer} keeps its port across {@link TestingServer#stop()} and {@link
 * TestingServer#restart()}; with a data directory of the caller's it keeps its data too.
 */
public final class TestZooKeeper {
  /** The server's tick: sessions may last from 2 to 300 ticks. */
  public static final int TICK_MILLIS = 200;

  /**
   * ZooKeeper's system property: how often a member tries to bind its election port, 0 for ever.
   */
  static final String ELECTION_PORT_BIND_RETRY = "zookeeper.electionPortBindRetry";

  static {
    // After 3 failed tries a member asks to end the JVM (exit code 14), and curator-test's servers
    // grant that request: one taken port would end the whole test run. Unless the caller chose
    // otherwise, a member tries every second until the port is free.
    if (System.getProperty(ELECTION_PORT_BIND_RETRY) == null) {
      System.setProperty(ELECTION_PORT_BIND_RETRY, "0");
    }
  }

  private TestZooKeeper() {}

  /**
   * A started server on a free port of 127.0.0.1, its data in a temporary directory deleted on
   * close.
   *
   * @return the running server; closing it stops it
   * @throws IllegalStateException when the server cannot start
   */
  public static TestingServer start() {
    return started(null, true);
  }

  /**
   * A started server on a free port of 127.0.0.1 keeping its data in {@code dataDir} (kept on close
   * and across a restart).
   *
   * @param dataDir the server's data directory
   * @return the running server; closing it stops it
   * @throws IllegalStateException when the server cannot start
   */
  public static TestingServer start(Path dataDir) {
    return started(dataDir, false);
  }

  private static TestingServer started(@Nullable Path dataDir, boolean deleteOnClose) {
    try {
      return new TestingServer(spec(dataDir, deleteOnClose, -1), true);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot start ZooKeeper on 127.0.0.1"
              + (dataDir == null ? "" : " with its data in " + dataDir),
          e);
    }
  }

  /**
   * A started ensemble of {@code servers} servers on 127.0.0.1, each on ports of its own and with a
   * temporary data directory deleted on close.
   *
   * @param servers how many servers, at least 1
   * @return the running ensemble; closing it stops every server
   * @throws IllegalArgumentException when {@code servers} is less than 1
   * @throws IllegalStateException when the ensemble cannot start
   */
  public static TestingCluster cluster(int servers) {
    if (servers < 1) {
      throw new IllegalArgumentException(
          "a ZooKeeper ensemble needs at least 1 server, not " + servers);
    }
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= servers; id++) {
      specs.add(spec(null, true, id));
    }
    TestingCluster cluster = new TestingCluster(specs);
    try {
      cluster.start();
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot start a ZooKeeper ensemble of " + servers + " on " + cluster.getConnectString(),
          e);
    }
    return cluster;
  }

  /**
   * A server's spec on free loopback ports; {@code dataDir} null for a temporary one, {@code
   * serverId} -1 for a standalone server.
   *
   * @param dataDir the data directory, or null for a temporary one
   * @param deleteOnClose whether the data directory is deleted when the server closes
   * @param serverId the server's id in an ensemble, or -1 for a standalone server
   * @return the spec
   */
  public static InstanceSpec spec(@Nullable Path dataDir, boolean deleteOnClose, int serverId) {
    int[] ports = LoopbackPorts.free(3);
    File dir = dataDir == null ? null : dataDir.toFile();
    return new InstanceSpec(
        dir,
        ports[0],
        ports[1],
        ports[2],
        deleteOnClose,
        serverId,
        TICK_MILLIS,
        -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "60000"),
        "127.0.0.1");
  }

  /**
   * The instance that leads {@code cluster} now, asked with the {@code srvr} four-letter command.
   *
   * @param cluster a running ensemble
   * @return the leader's spec
   * @throws IllegalStateException when no server says it leads
   */
  public static InstanceSpec leader(TestingCluster cluster) {
    for (InstanceSpec spec : cluster.getInstances()) {
      if (srvr(spec.getPort()).contains("Mode: leader")) {
        return spec;
      }
    }
    throw new IllegalStateException("no leader in " + cluster.getConnectString());
  }

  private static String srvr(int port) {
    try {
      return fourLetterWord(port, "srvr");
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Sends a four-letter command, such as {@code srvr} or {@code wchp}, to the server on {@code
   * port} of 127.0.0.1 and returns its whole reply. Commands other than {@code srvr} answer only
   * when the system property {@code zookeeper.4lw.commands.whitelist} names them.
   *
   * @param port the server's client port
   * @param word the command
   * @return the server's reply
   * @throws IOException when the server does not answer within 2 s
   */
  public static String fourLetterWord(int port, String word) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write(word.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
