package dev.locksmith.tcp.server;

import java.net.SocketAddress;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what goes wrong with the server's connections as the clients' doing or the machine's: each
 * kind at WARN without a stack trace, at most once every 10 s with a count of the rest, since such
 * failures come in floods (a misconfigured fleet, memory used up) and a line per connection only
 * buries the log. Thread-safe.
 */
final class ConnectionFailureLog {
  private static final Logger LOG = LoggerFactory.getLogger(LockServer.class);
  private static final Duration EVERY = Duration.ofSeconds(10);

  private final ThrottledWarning refusals = new ThrottledWarning(EVERY);
  private final ThrottledWarning tlsFailures = new ThrottledWarning(EVERY);
  private final ThrottledWarning memoryFailures = new ThrottledWarning(EVERY);

  /** A connection was refused (shutting down, or a connection limit reached). */
  void refused(Object connection, String reason) {
    long refused = refusals.occurred();
    if (refused > 0) {
      LOG.warn(
          "Refusing connection from {}: {} ({} refused since the last such message)",
          connection,
          reason,
          refused);
    }
  }

  /**
   * A client's TLS failed (a handshake it broke off or garbled, bytes that are no TLS record):
   * logged as the client's doing.
   */
  void tlsFailed(@Nullable SocketAddress remote, Throwable cause) {
    long failed = tlsFailures.occurred();
    if (failed > 0) {
      LOG.warn(
          "TLS with {} failed: {} ({} TLS failures since the last such message)",
          remote,
          TlsGate.describe(cause),
          failed);
    } else {
      LOG.debug("TLS with {} failed: {}", remote, TlsGate.describe(cause));
    }
  }

  /**
   * A connection could not get memory for what it read or for its replies (direct memory used up)
   * and is closed.
   */
  void outOfMemory(@Nullable Object connection, Throwable cause) {
    long failed = memoryFailures.occurred();
    if (failed > 0) {
      LOG.warn(
          "Connection {} closed for lack of memory: {} ({} buffers refused since the last such"
              + " message; see -XX:MaxDirectMemorySize)",
          connection,
          cause.toString(),
          failed);
    } else {
      LOG.debug("Connection {} closed for lack of memory: {}", connection, cause.toString());
    }
  }
}
