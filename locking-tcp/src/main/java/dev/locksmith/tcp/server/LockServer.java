package dev.locksmith.tcp.server;

import dev.locksmith.tcp.internal.Protocol;
import java.io.IOException;

/**
 * The Locksmith lock server: leases in memory with server-side TTLs, FIFO waiters whose grants are
 * pushed, leases of running work released at once when their client ends its connection (kept until
 * their end when the connection ends otherwise, as leases shortened to a minimum hold always are),
 * fencing tokens that keep increasing across restarts, limits against hostile clients, and metrics.
 * Usable in-process:
 *
 * <pre>{@code
 * LockServer server = LockServer.builder().port(0).dataDir(dir).build();
 * int port = server.start();
 * ...
 * server.close(); // tells clients "* BYE shutting-down"
 * }</pre>
 *
 * <p>The protocol is specified in {@code locking-tcp/PROTOCOL.md}.
 */
public final class LockServer implements AutoCloseable {
  private final ServerRuntime runtime;

  LockServer(ServerSettings settings) {
    this.runtime = new ServerRuntime(settings);
  }

  /**
   * A builder with the defaults: port 7420 on 127.0.0.1, no data directory, no auth, no TLS.
   *
   * @return a new builder
   */
  public static LockServerBuilder builder() {
    return new LockServerBuilder();
  }

  /**
   * Opens the data directory, binds and starts serving (and the metrics endpoint, if asked for).
   * When the fencing high-water mark a crash left is still ahead of the clock, first waits for the
   * clock to pass it (at most {@link LockServerBuilder#fencingBlock(long)} microseconds, a second
   * by default).
   *
   * @return the bound port (useful with {@code port(0)})
   * @throws IOException when the data directory, the TLS files or a bind fail
   */
  public int start() throws IOException {
    return runtime.start();
  }

  /**
   * The bound port; -1 before {@link #start()}.
   *
   * @return the bound port; -1 before {@link #start()}
   */
  public int port() {
    return runtime.port();
  }

  /**
   * The Prometheus endpoint's bound port; -1 when there is none ({@link
   * LockServerBuilder#metricsPort(int)}) or before {@link #start()}.
   *
   * @return the Prometheus endpoint's bound port; -1 when there is none ({@link
   *     LockServerBuilder#metricsPort(int)}) or before {@link #start()}
   */
  public int metricsPort() {
    return runtime.metricsPort();
  }

  /**
   * Whether the server has been closed.
   *
   * @return whether the server has been closed
   */
  public boolean isClosed() {
    return runtime.isClosed();
  }

  /**
   * Stops the server: stops accepting, sends {@code * BYE shutting-down} to every client and closes
   * their connections (which ends their leases), then stops the threads. Idempotent.
   */
  @Override
  public void close() {
    runtime.close();
  }

  /**
   * Blocks until {@link #close()} has finished.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public void awaitTermination() throws InterruptedException {
    runtime.awaitTermination();
  }

  /** How many locks have a holder or waiters (for tests). */
  int lockCount() throws Exception {
    return runtime.lockCount();
  }

  /** The most core tasks one connection has had queued or running at once (for tests). */
  int peakInFlight() {
    return (int) runtime.peaks().inFlight().get();
  }

  /** The most lines one connection has had split and waiting for room at once (for tests). */
  int peakBacklog() {
    return (int) runtime.peaks().backlog().get();
  }

  /** The most bytes of replies one connection has had waiting for its socket (for tests). */
  long peakOutbound() {
    return runtime.peaks().outbound().get();
  }

  /** The running parts (for tests). */
  ServerRuntime runtime() {
    return runtime;
  }

  @Override
  public String toString() {
    return runtime.toString();
  }

  /**
   * The default longest request line: one ACQUIRE-ALL of {@link Protocol#MAX_LOCKS_PER_REQUEST}
   * lock ids of 1024 bytes each, all percent-encoded (3 characters a byte), each with an owner
   * token of 128 characters, plus the request's head and owner description, fits.
   */
  static final int DEFAULT_MAX_LINE_LENGTH = 256 * 1024;
}
