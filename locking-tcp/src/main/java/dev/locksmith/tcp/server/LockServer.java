package dev.locksmith.tcp.server;

import static dev.locksmith.tcp.server.SettingChecks.notNegative;
import static dev.locksmith.tcp.server.SettingChecks.portIn;
import static dev.locksmith.tcp.server.SettingChecks.positive;

import dev.locksmith.tcp.internal.Protocol;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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

  private LockServer(ServerSettings settings) {
    this.runtime = new ServerRuntime(settings);
  }

  /**
   * A builder with the defaults: port 7420 on 127.0.0.1, no data directory, no auth, no TLS.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens the data directory, binds and starts serving (and the metrics endpoint, if asked for).
   * When the fencing high-water mark a crash left is still ahead of the clock, first waits for the
   * clock to pass it (at most {@link Builder#fencingBlock(long)} microseconds, a second by
   * default).
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
   * The Prometheus endpoint's bound port; -1 when there is none ({@link Builder#metricsPort(int)})
   * or before {@link #start()}.
   *
   * @return the Prometheus endpoint's bound port; -1 when there is none ({@link
   *     Builder#metricsPort(int)}) or before {@link #start()}
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

  /** Configures a {@link LockServer}. */
  public static final class Builder {
    private int port = Protocol.DEFAULT_PORT;
    private String bind = "127.0.0.1";
    private @Nullable Path dataDir;
    private @Nullable Secret secret;
    private @Nullable Path tlsCert;
    private @Nullable Path tlsKey;
    private int maxLineLength = DEFAULT_MAX_LINE_LENGTH;
    private int maxKeyBytes = 1024;
    private int maxConnections = 4096;
    private int maxUnauthenticated = 256;
    private int maxUnauthenticatedPerAddress = 8;
    private int maxConnectionsPerAddress = 1024;
    private int maxWaitersPerLock = 1024;
    private int maxLocksPerConnection = 1024;
    private int maxDetachedLeases = 100_000;
    private int maxErrors = 10;
    private Duration idleTimeout = Duration.ofMinutes(5);
    private Duration authTimeout = Duration.ofSeconds(5);
    private Duration lineTimeout = Duration.ofSeconds(10);
    private int metricsPort = -1;
    private String metricsBind = "127.0.0.1";
    private int workerThreads = 1;
    private long fencingBlock = FencingSequence.DEFAULT_SPAN;
    private Duration maxRestartWait = Duration.ofHours(1);

    private Builder() {}

    /**
     * The TCP port; 0 picks a free one, which {@link LockServer#start()} returns.
     *
     * @param port the TCP port; 0 picks a free one, which {@link LockServer#start()} returns
     * @return this builder
     */
    public Builder port(int port) {
      this.port = portIn("port", port, 0);
      return this;
    }

    /**
     * The address to bind; {@code 127.0.0.1} by default, {@code 0.0.0.0} for all interfaces.
     *
     * @param address the address to bind; {@code 127.0.0.1} by default, {@code 0.0.0.0} for all
     *     interfaces
     * @return this builder
     */
    public Builder bind(String address) {
      this.bind = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Where the fencing high-water mark and the lease horizon are kept. Tokens are max(last + 1,
     * the clock in microseconds) either way; the mark keeps them increasing across restarts even if
     * the clock was set back. The horizon makes a start wait for the leases of the run before to
     * end ({@link #maxRestartWait(Duration)}).
     *
     * @param dataDir where the fencing high-water mark and the lease horizon are kept
     * @return this builder
     */
    public Builder dataDir(@Nullable Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /**
     * Requires clients to send {@code AUTH <secret>} first; null turns authentication off.
     *
     * @param secret the shared secret, or null for no authentication
     * @return this builder
     */
    public Builder secret(@Nullable String secret) {
      this.secret = secret == null ? null : new Secret(secret);
      return this;
    }

    /**
     * Reads the shared secret from a file (surrounding whitespace and newlines are stripped).
     *
     * @param file the file holding the secret
     * @return this builder
     * @throws IOException when the file cannot be read
     */
    public Builder secretFile(Path file) throws IOException {
      this.secret = Secret.read(file);
      return this;
    }

    /**
     * Serves TLS with a PEM certificate chain and a PEM PKCS#8 private key.
     *
     * @param certPem the PEM certificate chain
     * @param keyPem the PEM PKCS#8 private key
     * @return this builder
     */
    public Builder tls(Path certPem, Path keyPem) {
      this.tlsCert = Objects.requireNonNull(certPem, "certPem");
      this.tlsKey = Objects.requireNonNull(keyPem, "keyPem");
      return this;
    }

    /**
     * The longest request line in bytes, without the newline (default 262,144: 256 KiB, room for an
     * ACQUIRE-ALL of 64 lock ids of 1024 bytes each even when every byte is percent-encoded, with
     * 128-character owner tokens). A server with a larger {@link #maxKeyBytes} needs a longer line
     * for that: {@code 64 * (3 * maxKeyBytes + 130) + 2048} bytes.
     *
     * @param bytes the longest request line in bytes, without the newline
     * @return this builder
     */
    public Builder maxLineLength(int bytes) {
      this.maxLineLength = positive("maxLineLength", bytes);
      return this;
    }

    /**
     * The longest lock id in UTF-8 bytes after decoding (default 1024).
     *
     * @param bytes the longest lock id in UTF-8 bytes after decoding (default 1024)
     * @return this builder
     */
    public Builder maxKeyBytes(int bytes) {
      this.maxKeyBytes = positive("maxKeyBytes", bytes);
      return this;
    }

    /**
     * How many authenticated connections may be open at once (default 4096). With a secret,
     * connections that have not authenticated yet count against {@link #maxUnauthenticated(int)}
     * instead; without one, every connection is authenticated.
     *
     * @param count how many authenticated connections may be open at once (default 4096)
     * @return this builder
     */
    public Builder maxConnections(int count) {
      this.maxConnections = positive("maxConnections", count);
      return this;
    }

    /**
     * With a secret: how many connections may be open without having authenticated yet (default
     * 256), on top of {@link #maxConnections(int)}, so connections that never authenticate cannot
     * take the places of real clients.
     *
     * @param count how many connections may be open without having authenticated yet
     * @return this builder
     */
    public Builder maxUnauthenticated(int count) {
      this.maxUnauthenticated = positive("maxUnauthenticated", count);
      return this;
    }

    /**
     * With a secret: how many connections from one client address may be open without having
     * authenticated yet (default 8).
     *
     * @param count with a secret: how many connections from one client address may be open without
     *     having authenticated yet (default 8)
     * @return this builder
     */
    public Builder maxUnauthenticatedPerAddress(int count) {
      this.maxUnauthenticatedPerAddress = positive("maxUnauthenticatedPerAddress", count);
      return this;
    }

    /**
     * How many connections one client address may have open, in any state (default 1024).
     *
     * @param count how many connections one client address may have open, in any state (default
     *     1024)
     * @return this builder
     */
    public Builder maxConnectionsPerAddress(int count) {
      this.maxConnectionsPerAddress = positive("maxConnectionsPerAddress", count);
      return this;
    }

    /**
     * How many detached leases (shortened to a minimum hold, held until their end whatever their
     * client does) the server keeps at once (default 100,000). A {@code HOLD} beyond it is refused
     * and the lease stays attached to its connection.
     *
     * @param count how many detached leases the server keeps at once
     * @return this builder
     */
    public Builder maxDetachedLeases(int count) {
      this.maxDetachedLeases = positive("maxDetachedLeases", count);
      return this;
    }

    /**
     * How many ACQUIREs may wait for one lock (default 1024).
     *
     * @param count how many ACQUIREs may wait for one lock (default 1024)
     * @return this builder
     */
    public Builder maxWaitersPerLock(int count) {
      this.maxWaitersPerLock = positive("maxWaitersPerLock", count);
      return this;
    }

    /**
     * How many locks one connection may hold and wait for together (default 1024).
     *
     * @param count how many locks one connection may hold and wait for together (default 1024)
     * @return this builder
     */
    public Builder maxLocksPerConnection(int count) {
      this.maxLocksPerConnection = positive("maxLocksPerConnection", count);
      return this;
    }

    /**
     * How many bad lines in a row close a connection (default 10).
     *
     * @param count how many bad lines in a row close a connection (default 10)
     * @return this builder
     */
    public Builder maxErrors(int count) {
      this.maxErrors = positive("maxErrors", count);
      return this;
    }

    /**
     * How long a connection may send nothing before it is closed (default 5 minutes).
     *
     * @param timeout how long a connection may send nothing before it is closed (default 5 minutes)
     * @return this builder
     */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive("idleTimeout", timeout);
      return this;
    }

    /**
     * With a secret: how long a new connection has to authenticate (TLS handshake included) before
     * it is closed with {@code * BYE auth-timeout} (default 5 seconds).
     *
     * @param timeout how long a new connection has to authenticate
     * @return this builder
     */
    public Builder authTimeout(Duration timeout) {
      this.authTimeout = positive("authTimeout", timeout);
      return this;
    }

    /**
     * How long a connection may take to finish a line it has started before it is closed with
     * {@code * BYE line-timeout} (default 10 seconds). Against clients that trickle bytes, which
     * the idle timeout never catches.
     *
     * @param timeout how long a connection may take to finish a line it has started
     * @return this builder
     */
    public Builder lineTimeout(Duration timeout) {
      this.lineTimeout = positive("lineTimeout", timeout);
      return this;
    }

    /**
     * Serves Prometheus metrics at {@code http://BIND:PORT/metrics} (0 picks a free port, see
     * {@link LockServer#metricsPort()}; -1, the default, serves none).
     *
     * @param port the metrics port: 0 for a free one, -1 for none
     * @return this builder
     */
    public Builder metricsPort(int port) {
      this.metricsPort = portIn("metricsPort", port, -1);
      return this;
    }

    /**
     * The address the metrics endpoint binds; {@code 127.0.0.1} by default. The endpoint has no
     * authentication.
     *
     * @param address the address the metrics endpoint binds; {@code 127.0.0.1} by default
     * @return this builder
     */
    public Builder metricsBind(String address) {
      this.metricsBind = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Netty event loops (default 1). With one, every connection is read, answered and written on
     * one thread that also holds the lock table, as Redis does, with no hand-off between threads:
     * the fastest on few cores. More spread socket and TLS work (many TLS handshakes at once, say)
     * over more threads; the lock table stays on the first, and the others hand their requests to
     * it.
     *
     * @param threads netty event loops (default 1)
     * @return this builder
     */
    public Builder workerThreads(int threads) {
      this.workerThreads = positive("workerThreads", threads);
      return this;
    }

    /**
     * Fencing tokens reserved by each write (with fsync) of the high-water mark in the data
     * directory (default 1,000,000). Tokens follow the clock in microseconds, so under load the
     * mark is written at most once per this many microseconds (once a second by default), and a
     * server restarted after a crash waits at most this long for the clock to pass the stored mark.
     *
     * @param tokens fencing tokens reserved by each write of the high-water mark
     * @return this builder
     */
    public Builder fencingBlock(long tokens) {
      this.fencingBlock = positive("fencingBlock", tokens);
      return this;
    }

    /**
     * The longest a server started on a data directory waits for the leases its run before granted
     * to end before it grants any (default 1 hour; zero grants at once). Leases live in memory, so
     * a server that crashed or was stopped while leases were held starts without them, while their
     * holders may not have heard of it and take them for held until their deadlines; until those
     * have passed, every lock counts as held by an unknown holder ({@code STATUS} answers {@code
     * HELD 0}), an ACQUIRE with a wait waits and one without is answered {@code BUSY}. The server
     * knows when they end from {@code leases.horizon} in the data directory; a clean stop with no
     * lease held leaves nothing to wait for. Without a data directory a start never waits.
     *
     * @param limit the longest wait; leases of the run before that last longer are not waited for.
     *     A limit over 10,000 days counts as 10,000 days
     * @return this builder
     */
    public Builder maxRestartWait(Duration limit) {
      this.maxRestartWait = notNegative("maxRestartWait", limit);
      return this;
    }

    /**
     * Creates the server; {@link LockServer#start()} binds it.
     *
     * @return the server, not bound until {@link LockServer#start()}
     */
    public LockServer build() {
      return new LockServer(
          new ServerSettings(
              port,
              bind,
              dataDir,
              secret,
              tlsCert,
              tlsKey,
              maxLineLength,
              maxKeyBytes,
              maxConnections,
              maxUnauthenticated,
              maxUnauthenticatedPerAddress,
              maxConnectionsPerAddress,
              maxWaitersPerLock,
              maxLocksPerConnection,
              maxDetachedLeases,
              maxErrors,
              idleTimeout,
              authTimeout,
              lineTimeout,
              workerThreads,
              fencingBlock,
              maxRestartWait,
              metricsPort,
              metricsBind));
    }
  }
}
