package dev.locksmith.redis;

import dev.locksmith.testkit.LoopbackPorts;
import dev.locksmith.testkit.redis.RedisBinaries;
import dev.locksmith.testkit.redis.RespClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A real {@code redis-server --sentinel} on a loopback port, from the same binary the tests use,
 * monitoring {@code masterPort}: an endpoint that speaks Redis's protocol but answers {@code EVAL}
 * and {@code EVALSHA} with {@code ERR unknown command}, as a Sentinel port given where a server's
 * belongs does.
 */
final class SentinelProcess implements AutoCloseable {
  private final Process process;
  private final int port;

  private SentinelProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static SentinelProcess start(int masterPort) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("locksmith-sentinel");
    int port = LoopbackPorts.free();
    Path conf = dir.resolve("sentinel.conf");
    Files.writeString(
        conf,
        "port "
            + port
            + "\nbind 127.0.0.1\nprotected-mode no\ndir "
            + dir
            + "\nsentinel monitor mymaster 127.0.0.1 "
            + masterPort
            + " 1\n",
        StandardCharsets.UTF_8);
    Process process =
        new ProcessBuilder(RedisBinaries.find().toString(), conf.toString(), "--sentinel")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("sentinel.log").toFile())
            .start();
    SentinelProcess sentinel = new SentinelProcess(process, port);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        if ("PONG".equals(sentinel.call("PING"))) {
          return sentinel;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (!process.isAlive() || System.nanoTime() - deadline > 0) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "redis-server --sentinel did not start: "
                + Files.readString(dir.resolve("sentinel.log")));
      }
      // Returns at once when the process exits; else paces the readiness probe.
      process.waitFor(50, TimeUnit.MILLISECONDS);
    }
  }

  int port() {
    return port;
  }

  @Nullable Object call(String... command) throws IOException {
    return RespClient.call("127.0.0.1", port, Duration.ofSeconds(5), command);
  }

  /** The bytes the sentinel has read from all its clients so far. */
  long inputBytes() throws IOException {
    String info = String.valueOf(call("INFO", "stats"));
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("total_net_input_bytes:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    throw new IllegalStateException("no total_net_input_bytes in " + info);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } catch (UncheckedIOException e) {
      process.destroyForcibly();
    }
  }
}
