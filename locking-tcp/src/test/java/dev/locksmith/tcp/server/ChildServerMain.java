package dev.locksmith.tcp.server;

import java.nio.file.Path;

/**
 * A lock server in a child JVM for tests that kill it: port 0 on 127.0.0.1, with the data directory
 * given as the only argument, if any. It logs "listening on 127.0.0.1:PORT" once bound and runs
 * until killed. Users run {@code locksmith server} instead.
 */
public final class ChildServerMain {
  private ChildServerMain() {}

  /** Starts the server and waits for it to end. */
  public static void main(String[] args) throws Exception {
    LockServerBuilder builder = LockServer.builder().port(0).bind("127.0.0.1");
    if (args.length > 0) {
      builder.dataDir(Path.of(args[0]));
    }
    LockServer server = builder.build();
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "child-server-shutdown"));
    server.awaitTermination();
  }
}
