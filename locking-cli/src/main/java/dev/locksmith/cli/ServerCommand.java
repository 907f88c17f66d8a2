package dev.locksmith.cli;

import dev.locksmith.tcp.server.LockServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
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
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = ExitCodes.USAGE)
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

  @Option(
      names = "--idle-timeout",
      converter = DurationConverter.class,
      description = "Close connections idle this long.")
  @Nullable Duration idleTimeout;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if ((tlsCert == null) != (tlsKey == null)) {
      err.println("locksmith: --tls-cert and --tls-key must be given together");
      return ExitCodes.USAGE;
    }
    LockServer server;
    try {
      server = build();
    } catch (IllegalArgumentException | IOException e) {
      err.println("locksmith: " + e.getMessage());
      return ExitCodes.USAGE;
    }
    int bound;
    try {
      bound = server.start();
    } catch (IOException e) {
      err.println("locksmith: cannot start the lock server: " + e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
    err.println("locksmith: lock server listening on " + bind + ":" + bound);
    err.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "locksmith-server-shutdown"));
    server.awaitTermination();
    return 0;
  }

  private LockServer build() throws IOException {
    LockServer.Builder builder = LockServer.builder().port(port).bind(bind).dataDir(dataDir);
    if (secretFile != null) {
      builder.secretFile(secretFile);
    }
    if (tlsCert != null && tlsKey != null) {
      builder.tls(tlsCert, tlsKey);
    }
    if (maxConnections != null) {
      builder.maxConnections(maxConnections);
    }
    if (maxWaitersPerLock != null) {
      builder.maxWaitersPerLock(maxWaitersPerLock);
    }
    if (maxLineLength != null) {
      builder.maxLineLength(maxLineLength);
    }
    if (idleTimeout != null) {
      builder.idleTimeout(idleTimeout);
    }
    return builder.build();
  }
}
