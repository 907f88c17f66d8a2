package dev.locksmith.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports of 127.0.0.1 for test servers that bind them later, such as a ZooKeeper ensemble that
 * writes every member's ports into every member's configuration before any of them starts.
 *
 * <p>A port the system hands out for {@code bind(0)} and that is closed again is free only for a
 * moment: the system may hand it to the next outgoing connection or {@code bind(0)} of any process,
 * and the server that was meant to bind it then fails. The ports here come from below the system's
 * ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range} on Linux, 32768 to 60999 by
 * default; elsewhere 49152 and up), which the system never hands out by itself; each was bound on
 * 127.0.0.1 when chosen, and none is handed out twice in one JVM. Where the ephemeral range leaves
 * no room below it, ports come from {@code bind(0)}, with the race above.
 */
public final class LoopbackPorts {
  private static final int LOWEST = 10_000;
  private static final int LINUX_DEFAULT_EPHEMERAL_START = 32_768;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private static final Set<Integer> HANDED_OUT = new HashSet<>();
  private static int next = -1;

  private LoopbackPorts() {}

  /**
   * A free port of 127.0.0.1, below the system's ephemeral range where it leaves room.
   *
   * @return the port
   * @throws UncheckedIOException when no port is free
   */
  public static int free() {
    return free(1)[0];
  }

  /**
   * {@code count} distinct free ports of 127.0.0.1, below the system's ephemeral range where it
   * leaves room.
   *
   * @param count how many, at least 1
   * @return the ports
   * @throws IllegalArgumentException when {@code count} is less than 1
   * @throws UncheckedIOException when not enough ports are free
   */
  public static synchronized int[] free(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("ask for at least 1 port, not " + count);
    }
    int end = ephemeralStart();
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = end - LOWEST < 1_000 ? fromBindZero() : below(end);
      HANDED_OUT.add(ports[i]);
    }
    return ports;
  }

  /**
   * The first port of the range the system hands out by itself.
   *
   * @return the first ephemeral port
   */
  static int ephemeralStart() {
    // Read line by line: a file of /proc reports a size of 0, and Files.readString reads too
    // little.
    try (BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
      String line = reader.readLine();
      return Integer.parseInt(String.valueOf(line).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // Not Linux: macOS and Windows hand out 49152 and up, so below 32768 is safe there too.
      return LINUX_DEFAULT_EPHEMERAL_START;
    }
  }

  // Walks [LOWEST, end) from a random start, so that JVMs running side by side seldom probe the
  // same
  // ports in the same order.
  private static int below(int end) {
    int span = end - LOWEST;
    if (next < 0) {
      next = ThreadLocalRandom.current().nextInt(span);
    }
    for (int tried = 0; tried < span; tried++) {
      int port = LOWEST + next;
      next = (next + 1) % span;
      if (!HANDED_OUT.contains(port) && bindable(port)) {
        return port;
      }
    }
    throw new UncheckedIOException(
        new IOException("no free port of 127.0.0.1 from " + LOWEST + " to " + (end - 1)));
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int fromBindZero() {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        if (!HANDED_OUT.contains(socket.getLocalPort())) {
          return socket.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind a port of 127.0.0.1", e);
      }
    }
    throw new UncheckedIOException(
        new IOException("bind(0) kept handing out ports already handed out"));
  }
}
