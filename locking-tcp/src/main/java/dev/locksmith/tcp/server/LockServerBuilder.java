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
 * Configures a {@link LockServer}: where it listens, its data directory, authentication, TLS, the
 * limits it holds clients to and its metrics endpoint. Get one from {@link LockServer#builder()};
 * each setter checks its value at once.
 */
public final class LockServerBuilder {
  private int port = Protocol.DEFAULT_PORT;
  private String bind = "127.0.0.1";
  private @Nullable Path dataDir;
  private @Nullable Secret secret;
  private @Nullable Path tlsCert;
  private @Nullable Path tlsKey;
  private int maxLineLength = LockServer.DEFAULT_MAX_LINE_LENGTH;
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

  LockServerBuilder() {}

  /**
   * The TCP port; 0 picks a free one, which {@link LockServer#start()} returns.
   *
   * @param port the TCP port; 0 picks a free one, which {@link LockServer#start()} returns
   * @return this builder
   */
  public LockServerBuilder port(int port) {
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
  public LockServerBuilder bind(String address) {
    this.bind = Objects.requireNonNull(address, "address");
    return this;
  }

  /**
   * Where the fencing high-water mark and the lease horizon are kept. Tokens are max(last + 1, the
   * clock in microseconds) either way; the mark keeps them increasing across restarts even if the
   * clock was set back. The horizon makes a start wait for the leases of the run before to end
   * ({@link #maxRestartWait(Duration)}).
   *
   * @param dataDir where the fencing high-water mark and the lease horizon are kept
   * @return this builder
   */
  public LockServerBuilder dataDir(@Nullable Path dataDir) {
    this.dataDir = dataDir;
    return this;
  }

  /**
   * Requires clients to send {@code AUTH <secret>} first; null turns authentication off.
   * Surrounding whitespace is stripped, as clients strip theirs.
   *
   * @param secret the shared secret, or null for no authentication
   * @return this builder
   * @throws IllegalArgumentException when the secret is empty or only whitespace, or holds a line
   *     break or another control character (an {@code AUTH} line cannot carry it)
   */
  public LockServerBuilder secret(@Nullable String secret) {
    this.secret = secret == null ? null : new Secret(secret);
    return this;
  }

  /**
   * Reads the shared secret from a file (surrounding whitespace and newlines are stripped).
   *
   * @param file the file holding the secret
   * @return this builder
   * @throws IOException when the file cannot be read, is empty, or its secret holds a line break or
   *     another control character
   */
  public LockServerBuilder secretFile(Path file) throws IOException {
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
  public LockServerBuilder tls(Path certPem, Path keyPem) {
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
  public LockServerBuilder maxLineLength(int bytes) {
    this.maxLineLength = positive("maxLineLength", bytes);
    return this;
  }

  /**
   * The longest lock id in UTF-8 bytes after decoding (default 1024).
   *
   * @param bytes the longest lock id in UTF-8 bytes after decoding (default 1024)
   * @return this builder
   */
  public LockServerBuilder maxKeyBytes(int bytes) {
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
  public LockServerBuilder maxConnections(int count) {
    this.maxConnections = positive("maxConnections", count);
    return this;
  }

  /**
   * With a secret: how many connections may be open without having authenticated yet (default 256),
   * on top of {@link #maxConnections(int)}, so connections that never authenticate cannot take the
   * places of real clients.
   *
   * @param count how many connections may be open without having authenticated yet
   * @return this builder
   */
  public LockServerBuilder maxUnauthenticated(int count) {
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
  public LockServerBuilder maxUnauthenticatedPerAddress(int count) {
    this.maxUnauthenticatedPerAddress = positive("maxUnauthenticatedPerAddress", count);
    return this;
  }

  /**
   * How many connections one client address may have open, in any state (default 1024).
   *
   * @param count how many connections one client address may have open, in any state (default 1024)
   * @return this builder
   */
  public LockServerBuilder maxConnectionsPerAddress(int count) {
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
  public LockServerBuilder maxDetachedLeases(int count) {
    this.maxDetachedLeases = positive("maxDetachedLeases", count);
    return this;
  }

  /**
   * How many ACQUIREs may wait for one lock (default 1024).
   *
   * @param count how many ACQUIREs may wait for one lock (default 1024)
   * @return this builder
   */
  public LockServerBuilder maxWaitersPerLock(int count) {
    this.maxWaitersPerLock = positive("maxWaitersPerLock", count);
    return this;
  }

  /**
   * How many locks one connection may hold and wait for together (default 1024).
   *
   * @param count how many locks one connection may hold and wait for together (default 1024)
   * @return this builder
   */
  public LockServerBuilder maxLocksPerConnection(int count) {
    this.maxLocksPerConnection = positive("maxLocksPerConnection", count);
    return this;
  }

  /**
   * How many bad lines in a row close a connection (default 10).
   *
   * @param count how many bad lines in a row close a connection (default 10)
   * @return this builder
   */
  public LockServerBuilder maxErrors(int count) {
    this.maxErrors = positive("maxErrors", count);
    return this;
  }

  /**
   * How long a connection may send nothing before it is closed (default 5 minutes).
   *
   * @param timeout how long a connection may send nothing before it is closed (default 5 minutes)
   * @return this builder
   */
  public LockServerBuilder idleTimeout(Duration timeout) {
    this.idleTimeout = positive("idleTimeout", timeout);
    return this;
  }

  /**
   * With a secret: how long a new connection has to authenticate (TLS handshake included) before it
   * is closed with {@code * BYE auth-timeout} (default 5 seconds).
   *
   * @param timeout how long a new connection has to authenticate
   * @return this builder
   */
  public LockServerBuilder authTimeout(Duration timeout) {
    this.authTimeout = positive("authTimeout", timeout);
    return this;
  }

  /**
   * How long a connection may take to finish a line it has started before it is closed with {@code
   * * BYE line-timeout} (default 10 seconds). Against clients that trickle bytes, which the idle
   * timeout never catches.
   *
   * @param timeout how long a connection may take to finish a line it has started
   * @return this builder
   */
  public LockServerBuilder lineTimeout(Duration timeout) {
    this.lineTimeout = positive("lineTimeout", timeout);
    return this;
  }

  /**
   * Serves Prometheus metrics at {@code http://BIND:PORT/metrics} (0 picks a free port, see {@link
   * LockServer#metricsPort()}; -1, the default, serves none).
   *
   * @param port the metrics port: 0 for a free one, -1 for none
   * @return this builder
   */
  public LockServerBuilder metricsPort(int port) {
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
  public LockServerBuilder metricsBind(String address) {
    this.metricsBind = Objects.requireNonNull(address, "address");
    return this;
  }

  /**
   * Netty event loops (default 1). With one, every connection is read, answered and written on one
   * thread that also holds the lock table, as Redis does, with no hand-off between threads: the
   * fastest on few cores. More spread socket and TLS work (many TLS handshakes at once, say) over
   * more threads; the lock table stays on the first, and the others hand their requests to it.
   *
   * @param threads netty event loops (default 1)
   * @return this builder
   */
  public LockServerBuilder workerThreads(int threads) {
    this.workerThreads = positive("workerThreads", threads);
    return this;
  }

  /**
   * Fencing tokens reserved by each write (with fsync) of the high-water mark in the data directory
   * (default 1,000,000). Tokens follow the clock in microseconds, so under load the mark is written
   * at most once per this many microseconds (once a second by default), and a server restarted
   * after a crash waits at most this long for the clock to pass the stored mark.
   *
   * @param tokens fencing tokens reserved by each write of the high-water mark
   * @return this builder
   */
  public LockServerBuilder fencingBlock(long tokens) {
    this.fencingBlock = positive("fencingBlock", tokens);
    return this;
  }

  /**
   * The longest a server started on a data directory waits for the leases its run before granted to
   * end before it grants any (default 1 hour; zero grants at once). Leases live in memory, so a
   * server that crashed or was stopped while leases were held starts without them, while their
   * holders may not have heard of it and take them for held until their deadlines; until those have
   * passed, every lock counts as held by an unknown holder ({@code STATUS} answers {@code HELD 0}),
   * an ACQUIRE with a wait waits and one without is answered {@code BUSY}. The server knows when
   * they end from {@code leases.horizon} in the data directory; a clean stop with no lease held
   * leaves nothing to wait for. Without a data directory a start never waits.
   *
   * @param limit the longest wait; leases of the run before that last longer are not waited for. A
   *     limit over 10,000 days counts as 10,000 days
   * @return this builder
   */
  public LockServerBuilder maxRestartWait(Duration limit) {
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
