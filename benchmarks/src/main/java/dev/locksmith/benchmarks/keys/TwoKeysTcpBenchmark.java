package dev.locksmith.benchmarks.keys;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.tcp.server.LockServer;
import org.jspecify.annotations.Nullable;

/** {@link TwoKeysBenchmark} on the TCP provider, against a lock server in this JVM. */
public class TwoKeysTcpBenchmark extends TwoKeysBenchmark {
  private @Nullable LockServer server;

  @Override
  LockProvider startProvider() throws Exception {
    LockServer started = LockServer.builder().port(0).build();
    server = started;
    return LockProviders.create("tcp://127.0.0.1:" + started.start());
  }

  @Override
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }
}
