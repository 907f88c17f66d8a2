package dev.locksmith.cli;

import dev.locksmith.core.Durations;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.LockServerBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code locksmith server}: the TCP lock server. */
@Command(
    name = "server",
    description =
        "Runs the TCP lock server until stopped (Ctrl-C or SIGTERM shuts it down gracefully).",
    mixinStandardHelpOptions = true)
final class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--port",
      defaultValue = "7420",
      description = "Port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--bind",
      defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String bind;

  @Option(
      names = "--data-dir",
      description =
          "Directory for the fencing-token high-water mark (keeps tokens increasing across restarts).")
  @Nullable Path dataDir;

  @Option(
      names = "--secret-file",
      description = "File holding the shared secret clients must send.")
  @Nullable Path secretFile;

  @Option(names = "--tls-cert", description = "PEM certificate chain; enables TLS with --tls-key.")
  @Nullable Path tlsCert;

  @Option(names = "--tls-key", description = "PEM private key (PKCS#8).")
  @Nullable Path tlsKey;

  @Option(names = "--max-connections", description = "Connection limit.")
  @Nullable Integer maxConnections;

  @Option(names = "--max-waiters-per-lock", description = "Waiters allowed per lock.")
  @Nullable Integer maxWaitersPerLock;

  @Option(names = "--max-line-length", description = "Longest request line in bytes.")
  @Nullable Integer maxLineLength;

  @Option(names = "--idle-timeout", description = "Close connections idle this long.")
  @Nullable Duration idleTimeout;

  @Option(
      names = "--max-connections-per-address",
      description = "Connections allowed from one client address.")
  @Nullable Integer maxConnectionsPerAddress;

  @Option(
      names = "--max-unauthenticated",
      description = "Connections allowed to be waiting for AUTH at once.")
  @Nullable Integer maxUnauthenticated;

  @Option(
      names = "--max-unauthenticated-per-address",
      description = "Connections waiting for AUTH allowed from one client address.")
  @Nullable Integer maxUnauthenticatedPerAddress;

  @Option(names = "--max-locks-per-connection", description = "Locks one connection may hold.")
  @Nullable Integer maxLocksPerConnection;

  @Option(
      names = "--max-detached-leases",
      description = "Leases kept after their client's connection closed (minHold).")
  @Nullable Integer maxDetachedLeases;

  @Option(
      names = "--max-restart-wait",
      description =
          "Longest a start on --data-dir waits for the leases of the run before to end before it"
              + " grants any (default: 1h, at most 365d; 0s grants at once).")
  @Nullable Duration maxRestartWait;

  @Option(
      names = "--auth-timeout",
      description = "Close connections that have not authenticated within this time.")
  @Nullable Duration authTimeout;

  @Option(
      names = "--line-timeout",
      description = "Close connections that take longer than this to send one request line.")
  @Nullable Duration lineTimeout;

  @Option(
      names = "--metrics-port",
      description = "Serve the server's counters as Prometheus text on this port (off by default).")
  @Nullable Integer metricsPort;

  @Option(
      names = "--metrics-bind",
      description = "Address for --metrics-port (default: 127.0.0.1).")
  @Nullable String metricsBind;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if ((tlsCert == null) != (tlsKey == null)) {
      throw Failure.usage("--tls-cert and --tls-key must be given together");
    }
    if (metricsBind != null && metricsPort == null) {
      throw Failure.usage("--metrics-bind " + metricsBind + " needs --metrics-port");
    }
    if (port < 0 || port > 65_535) {
      throw Failure.usage("--port must be 0 to 65535, was " + port);
    }
    requireReadable("--tls-cert", tlsCert);
    requireReadable("--tls-key", tlsKey);
    if (dataDir != null && Files.exists(dataDir) && !Files.isDirectory(dataDir)) {
      throw Failure.usage("--data-dir " + dataDir + " is not a directory");
    }
    LockServer server;
    try {
      server = build();
    } catch (IllegalArgumentException e) {
      throw Failure.usage(String.valueOf(e.getMessage()), e);
    }
    int bound;
    try {
      bound = server.start();
    } catch (SSLException e) {
      throw Failure.usage(
          "cannot use --tls-cert "
              + tlsCert
              + " and --tls-key "
              + tlsKey
              + ": "
              + Errors.clean(e)
              + "; give a PEM certificate chain and its PKCS#8 PEM key",
          e);
    } catch (IOException e) {
      throw startFailure(e);
    }
    err.println("locksmith: lock server listening on " + bind + ":" + bound);
    err.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "locksmith-server-shutdown"));
    server.awaitTermination();
    return 0;
  }

  /**
   * Why the server could not start, with the option to look at: an address that does not resolve or
   * is not this host's names {@code --bind} or {@code --metrics-bind} (perhaps not yet: DNS down,
   * an interface still coming up); a port in use names its option; anything else (the data
   * directory) names {@code --data-dir}.
   */
  private Failure startFailure(IOException e) {
    String message = "cannot start the lock server: " + Errors.clean(e);
    boolean metrics = String.valueOf(e.getMessage()).startsWith("cannot bind the metrics endpoint");
    String bindOption = metrics ? "--metrics-bind" : "--bind";
    String portOption = metrics ? "--metrics-port" : "--port";
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof UnresolvedAddressException || cause instanceof UnknownHostException) {
        return Failure.unavailable(message + "; " + bindOption + " does not resolve", e);
      }
      if (cause instanceof BindException) {
        return Failure.unavailable(
            message
                + (String.valueOf(cause.getMessage()).contains("assign requested address")
                    ? "; " + bindOption + " must be an address of this host, such as 127.0.0.1"
                    : "; is another process using this " + portOption + "?"),
            e);
      }
    }
    return Failure.unavailable(
        message + (dataDir != null ? "; check --data-dir " + dataDir : ""), e);
  }

  /**
   * Hands an option's value to the builder; a value the builder refuses is a usage error naming the
   * option and the value as given.
   */
  private static <T> void set(String option, @Nullable T value, Consumer<T> setter) {
    if (value == null) {
      return;
    }
    try {
      setter.accept(value);
    } catch (IllegalArgumentException e) {
      // The builder says "<setting> must be positive, was PT0S": say it of the option instead.
      String reason = String.valueOf(e.getMessage());
      String rest = reason.substring(reason.indexOf(' ') + 1);
      int was = rest.lastIndexOf(", was ");
      if (was >= 0) {
        rest = rest.substring(0, was) + ", was " + shown(value);
      }
      throw Failure.usage(option + " " + rest, e);
    }
  }

  private static String shown(Object value) {
    return value instanceof Duration d ? Durations.format(d) : String.valueOf(value);
  }

  private static void requireReadable(String option, @Nullable Path file) {
    if (file == null) {
      return;
    }
    if (!Files.exists(file)) {
      throw Failure.usage("cannot read " + option + " " + file + ": no such file");
    }
    if (Files.isDirectory(file)) {
      throw Failure.usage("cannot read " + option + " " + file + ": it is a directory");
    }
    if (!Files.isReadable(file)) {
      throw Failure.usage("cannot read " + option + " " + file + ": permission denied");
    }
  }

  private LockServer build() {
    LockServerBuilder builder = LockServer.builder().port(port).bind(bind).dataDir(dataDir);
    if (secretFile != null) {
      try {
        builder.secretFile(secretFile);
      } catch (IOException e) {
        throw Failure.usage(
            "cannot read --secret-file "
                + secretFile
                + ": "
                + Errors.ioReason(e)
                + "; give a readable file that holds the shared secret",
            e);
      }
    }
    if (tlsCert != null && tlsKey != null) {
      builder.tls(tlsCert, tlsKey);
    }
    set("--max-connections", maxConnections, builder::maxConnections);
    set("--max-waiters-per-lock", maxWaitersPerLock, builder::maxWaitersPerLock);
    set("--max-line-length", maxLineLength, builder::maxLineLength);
    set("--idle-timeout", idleTimeout, builder::idleTimeout);
    set(
        "--max-connections-per-address",
        maxConnectionsPerAddress,
        builder::maxConnectionsPerAddress);
    set("--max-unauthenticated", maxUnauthenticated, builder::maxUnauthenticated);
    set(
        "--max-unauthenticated-per-address",
        maxUnauthenticatedPerAddress,
        builder::maxUnauthenticatedPerAddress);
    set("--max-locks-per-connection", maxLocksPerConnection, builder::maxLocksPerConnection);
    set("--max-detached-leases", maxDetachedLeases, builder::maxDetachedLeases);
    set("--max-restart-wait", maxRestartWait, builder::maxRestartWait);
    set("--auth-timeout", authTimeout, builder::authTimeout);
    set("--line-timeout", lineTimeout, builder::lineTimeout);
    set("--metrics-port", metricsPort, builder::metricsPort);
    set("--metrics-bind", metricsBind, builder::metricsBind);
    return builder.build();
  }
}
