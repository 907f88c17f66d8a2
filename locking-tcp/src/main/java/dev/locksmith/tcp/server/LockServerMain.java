package dev.locksmith.tcp.server;

import dev.locksmith.core.Durations;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a {@link LockServer} from the command line and runs it until the JVM is asked to stop
 * (Ctrl-C, SIGTERM), when it shuts down gracefully and tells its clients.
 *
 * <pre>
 * java dev.locksmith.tcp.server.LockServerMain [--port 7420] [--bind 127.0.0.1]
 *     [--data-dir DIR] [--secret-file FILE] [--tls-cert CERT.pem --tls-key KEY.pem]
 *     [--max-connections N] [--max-unauthenticated N] [--max-unauthenticated-per-address N]
 *     [--max-connections-per-address N] [--max-locks-per-connection N]
 *     [--max-waiters-per-lock N] [--max-detached-leases N] [--idle-timeout 5m]
 *     [--auth-timeout 5s] [--line-timeout 10s] [--metrics-port PORT] [--metrics-bind 127.0.0.1]
 * </pre>
 */
public final class LockServerMain {
  private static final Logger LOG = LoggerFactory.getLogger(LockServerMain.class);

  /** The usage text. */
  public static final String USAGE =
      "usage: locksmith-server [--port 7420] [--bind 127.0.0.1] [--data-dir DIR]"
          + " [--secret-file FILE] [--tls-cert CERT.pem --tls-key KEY.pem]"
          + " [--max-connections N] [--max-unauthenticated N] [--max-unauthenticated-per-address N]"
          + " [--max-connections-per-address N] [--max-locks-per-connection N]"
          + " [--max-waiters-per-lock N] [--max-detached-leases N] [--idle-timeout 5m]"
          + " [--auth-timeout 5s] [--line-timeout 10s] [--metrics-port PORT]"
          + " [--metrics-bind 127.0.0.1]";

  private LockServerMain() {}

  /** Runs the server; exits with status 2 on bad arguments and 1 when it cannot start. */
  public static void main(String[] args) {
    LockServer server;
    try {
      server = parse(args);
    } catch (IllegalArgumentException | IOException e) {
      LOG.error("{}\n{}", e.getMessage(), USAGE);
      System.exit(2);
      return;
    }
    try {
      server.start();
    } catch (IOException e) {
      LOG.error("Cannot start the lock server: {}", e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "locksmith-server-shutdown"));
    try {
      server.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
  }

  /**
   * Builds (but does not start) a server from command-line arguments.
   *
   * @throws IllegalArgumentException naming the bad or unknown option
   * @throws IOException when the secret file cannot be read
   */
  public static LockServer parse(String[] args) throws IOException {
    LockServer.Builder builder = LockServer.builder();
    @Nullable Path cert = null;
    @Nullable Path key = null;
    List<String> list = new ArrayList<>(List.of(args));
    for (int i = 0; i < list.size(); i++) {
      String option = list.get(i);
      String value;
      int eq = option.indexOf('=');
      if (option.startsWith("--") && eq > 0) {
        value = option.substring(eq + 1);
        option = option.substring(0, eq);
      } else if (i + 1 < list.size()) {
        value = list.get(++i);
      } else {
        throw new IllegalArgumentException("option '" + option + "' needs a value");
      }
      switch (option) {
        case "--port" -> builder.port(integer(option, value));
        case "--bind" -> builder.bind(value);
        case "--data-dir" -> builder.dataDir(Path.of(value));
        case "--secret-file" -> builder.secretFile(Path.of(value));
        case "--tls-cert" -> cert = Path.of(value);
        case "--tls-key" -> key = Path.of(value);
        case "--max-connections" -> builder.maxConnections(integer(option, value));
        case "--max-unauthenticated" -> builder.maxUnauthenticated(integer(option, value));
        case "--max-unauthenticated-per-address" ->
            builder.maxUnauthenticatedPerAddress(integer(option, value));
        case "--max-connections-per-address" ->
            builder.maxConnectionsPerAddress(integer(option, value));
        case "--max-locks-per-connection" -> builder.maxLocksPerConnection(integer(option, value));
        case "--max-waiters-per-lock" -> builder.maxWaitersPerLock(integer(option, value));
        case "--max-detached-leases" -> builder.maxDetachedLeases(integer(option, value));
        case "--idle-timeout" -> builder.idleTimeout(Durations.parse(value));
        case "--auth-timeout" -> builder.authTimeout(Durations.parse(value));
        case "--line-timeout" -> builder.lineTimeout(Durations.parse(value));
        case "--metrics-port" -> builder.metricsPort(integer(option, value));
        case "--metrics-bind" -> builder.metricsBind(value);
        default -> throw new IllegalArgumentException("unknown option '" + option + "'");
      }
    }
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("--tls-cert and --tls-key must be given together");
    }
    if (cert != null && key != null) {
      builder.tls(cert, key);
    }
    return builder.build();
  }

  private static int integer(String option, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "option '" + option + "' needs a whole number, got '" + value + "'");
    }
  }
}
