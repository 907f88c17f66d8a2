package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.ChildJvmBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ChildServerMain} in a child JVM, for tests that kill the server with {@code kill -9}.
 */
final class ChildServer implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

  private final ChildJvm child;
  private final int port;

  private ChildServer(ChildJvm child, int port) {
    this.child = child;
    this.port = port;
  }

  /**
   * Starts a server, with {@code dataDir} if not null, logging to {@code log}, and waits until it
   * listens.
   */
  static ChildServer start(@Nullable Path dataDir, Path log) throws Exception {
    ChildJvmBuilder jvm = ChildJvm.builder(ChildServerMain.class).output(log);
    if (dataDir != null) {
      jvm.args(dataDir.toString());
    }
    ChildJvm child = jvm.start();
    Process server = child.process();
    int[] port = {0};
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> (port[0] = listeningPort(log)) > 0 || !server.isAlive());
    assertThat(server.isAlive()).as("server log %s", log).isTrue();
    return new ChildServer(child, port[0]);
  }

  int port() {
    return port;
  }

  /** Kills the server with {@code kill -9} and waits until it is gone. */
  void kill() throws InterruptedException {
    Process server = child.process();
    server.destroyForcibly();
    assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  @Override
  public void close() {
    child.close();
  }

  private static int listeningPort(Path log) throws IOException {
    Matcher m = LISTENING.matcher(Files.readString(log));
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
