package dev.locksmith.benchmarks.load;

import dev.locksmith.tcp.server.LockServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The lock server of the capacity benchmark, in a JVM of its own so that its heap and file
 * descriptors are its alone: limits raised so that only memory and descriptors bound it, on a free
 * loopback port. Prints {@code PORT <n>}, then answers commands on stdin: {@code HEAP} (full GCs,
 * then {@code HEAP <live bytes> <max bytes> <rss bytes> <open fds> <direct bytes>}) and {@code
 * STOP}.
 */
public final class CapacityServerMain {
  private CapacityServerMain() {}

  /** Runs the server until STOP or the end of stdin. */
  public static void main(String[] args) throws Exception {
    try (LockServer server =
        LockServer.builder()
            .port(0)
            .maxConnections(1_000_000)
            .maxConnectionsPerAddress(1_000_000)
            .maxLocksPerConnection(10_000_000)
            .maxWaitersPerLock(100_000)
            .workerThreads(Integer.getInteger("capacity.workerThreads", 1))
            .build()) {
      int port = server.start();
      System.out.println("PORT " + port);
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.equals("HEAP")) {
          System.out.println(
              "HEAP "
                  + liveHeap()
                  + " "
                  + Runtime.getRuntime().maxMemory()
                  + " "
                  + rss()
                  + " "
                  + openFds()
                  + " "
                  + directMemory());
          System.out.flush();
        } else if (line.equals("STOP")) {
          break;
        }
      }
    }
    System.exit(0);
  }

  /** Used heap after full collections, until it stops shrinking (at most five). */
  static long liveHeap() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used * 0.99) {
        return Math.min(now, used);
      }
      used = now;
    }
    return used;
  }

  /**
   * Direct memory reserved by the JVM's direct buffers (what {@code -XX:MaxDirectMemorySize}
   * bounds, and what Netty's allocator takes for its chunks), -1 where the JVM does not say.
   */
  static long directMemory() {
    return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(pool -> pool.getName().equals("direct"))
        .mapToLong(BufferPoolMXBean::getMemoryUsed)
        .findFirst()
        .orElse(-1);
  }

  /** The resident set of this process in bytes, from /proc (0 where there is none). */
  static long rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return 0;
  }

  /** Open file descriptors of this process (-1 where /proc is missing). */
  static int openFds() {
    String[] fds = new java.io.File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }
}
