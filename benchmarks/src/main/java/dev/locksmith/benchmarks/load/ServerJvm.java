package dev.locksmith.benchmarks.load;

import dev.locksmith.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A {@link CapacityServerMain} child JVM: start, ask for its live heap, stop. */
final class ServerJvm implements AutoCloseable {
  private final ChildJvm child;
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final int port;

  /**
   * Measured in the server's JVM.
   *
   * @param liveHeap used heap after full collections
   * @param maxHeap the heap limit (-Xmx)
   * @param rss resident set size of the process
   * @param fds open file descriptors
   * @param direct memory reserved by the JVM's direct buffers (-1 if unknown)
   */
  record Heap(long liveHeap, long maxHeap, long rss, int fds, long direct) {}

  private ServerJvm(ChildJvm child) throws IOException {
    this.child = child;
    this.process = child.process();
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    String line;
    int found = -1;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("PORT ")) {
        found = Integer.parseInt(line.substring(5).trim());
        break;
      }
    }
    if (found < 0) {
      process.destroyForcibly();
      throw new IOException("the server JVM did not start; exit " + exit(process));
    }
    this.port = found;
  }

  /** Starts the server JVM with the given heap, e.g. {@code 1g}; its log goes to {@code log}. */
  static ServerJvm start(String heap, Path log) throws IOException {
    ChildJvm child;
    try {
      child =
          ChildJvm.builder(CapacityServerMain.class)
              .jvmOptions("-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC")
              .systemProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn")
              .systemProperty(
                  "capacity.workerThreads",
                  Integer.toString(Integer.getInteger("capacity.workerThreads", 1)))
              .output(log)
              .appendOutput()
              .pipeStdout()
              .pipeStdin()
              .start();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return new ServerJvm(child);
  }

  private static String exit(Process process) {
    try {
      return process.waitFor(5, TimeUnit.SECONDS)
          ? Integer.toString(process.exitValue())
          : "none yet";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return child.pid();
  }

  /** Full collections in the server, then its live heap, RSS, descriptors and direct memory. */
  Heap heap() throws IOException {
    in.write("HEAP\n");
    in.flush();
    String line = out.readLine();
    if (line == null || !line.startsWith("HEAP ")) {
      throw new IOException("the server JVM died (exit " + exit(process) + ")");
    }
    String[] f = line.split(" ");
    return new Heap(
        Long.parseLong(f[1]),
        Long.parseLong(f[2]),
        Long.parseLong(f[3]),
        Integer.parseInt(f[4]),
        Long.parseLong(f[5]));
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    try {
      in.write("STOP\n");
      in.flush();
    } catch (IOException e) {
      // already gone
    }
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    child.close();
  }
}
