package dev.locksmith.testkit.redis;

import dev.locksmith.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code redis-server} child process on a free loopback port, without persistence ({@code --save
 * "" --appendonly no}) unless the extra arguments say otherwise. It can be killed and restarted on
 * the same port, and is killed when the JVM exits: by a shutdown hook, and by a {@link DeathWatch}
 * when the JVM is killed outright.
 */
public final class RedisServerProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisServerProcess.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(RedisServerProcess::kill), "locksmith-redis-reaper"));
  }

  private final Path binary;
  private final List<String> extraArgs;
  private final Path dir;
  private final @Nullable Path configFile;
  private final ReentrantLock mutex = new ReentrantLock();
  private int port;
  private @Nullable Process process;
  private @Nullable DeathWatch watch;
  private boolean closed;

  private RedisServerProcess(
      Path binary, List<String> extraArgs, Path dir, @Nullable Path configFile) {
    this.binary = binary;
    this.extraArgs = List.copyOf(extraArgs);
    this.dir = dir;
    this.configFile = configFile;
  }

  /**
   * Starts {@code binary} on a free port and waits until it answers {@code PING}.
   *
   * @param binary the redis-server binary
   * @param extraArgs more {@code redis-server} arguments, such as {@code "--cluster-enabled",
   *     "yes"}
   * @return the running server
   */
  public static RedisServerProcess start(Path binary, String... extraArgs) {
    Path dir = tempDir();
    RedisServerProcess server = new RedisServerProcess(binary, List.of(extraArgs), dir, null);
    server.startOnFreePort();
    return server;
  }

  /**
   * Starts {@code binary} with a configuration file of the given text (written to the server's
   * working directory and passed as the first argument, where {@code redis-server} expects it) on a
   * free port, and waits until it answers {@code PING}. A Sentinel needs this: it rewrites its file
   * as it learns the set-up, so the file stays across {@link #restart() restarts}.
   *
   * @param binary the redis-server binary
   * @param config the file's text, such as {@code "sentinel monitor m 127.0.0.1 6379 2\n"}
   * @param extraArgs more {@code redis-server} arguments, such as {@code "--sentinel"}
   * @return the running server
   */
  public static RedisServerProcess startWithConfig(
      Path binary, String config, String... extraArgs) {
    Path dir = tempDir();
    Path file = dir.resolve("redis.conf");
    try {
      Files.writeString(file, config, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    RedisServerProcess server = new RedisServerProcess(binary, List.of(extraArgs), dir, file);
    server.startOnFreePort();
    return server;
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("locksmith-redis");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void startOnFreePort() {
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      port = LoopbackPorts.free();
      try {
        launch();
        return;
      } catch (IllegalStateException e) {
        last = e; // most likely another process took the port in between; try another
        LOG.warn("redis-server did not start on port {}: {}", port, e.getMessage());
      }
    }
    throw last;
  }

  private void launch() {
    mutex.lock();
    try {
      if (closed) {
        throw new IllegalStateException("redis-server on port " + port + " is closed");
      }
      List<String> command = new ArrayList<>();
      command.add(binary.toString());
      if (configFile != null) {
        command.add(configFile.toString());
      }
      command.addAll(
          List.of(
              "--port",
              Integer.toString(port),
              "--bind",
              "127.0.0.1",
              "--protected-mode",
              "no",
              "--save",
              "",
              "--appendonly",
              "no",
              "--daemonize",
              "no",
              "--dir",
              dir.toString()));
      command.addAll(extraArgs);
      Path log = dir.resolve("redis.log");
      Process started =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      process = started;
      RUNNING.add(this);
      watch = DeathWatch.over(started);
      awaitReady(started, log);
      LOG.info("redis-server {} ready on port {} (pid {})", binary, port, started.pid());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary, e);
    } finally {
      mutex.unlock();
    }
  }

  private void awaitReady(Process started, Path log) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      try {
        if ("PONG".equals(RespClient.call("127.0.0.1", port, Duration.ofSeconds(1), "PING"))
            && started.isAlive()
            && answeredBy(started)) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (!started.isAlive()) {
        int exit = started.exitValue();
        kill(); // stops its death watch, which would otherwise outlive it
        throw new IllegalStateException("redis-server exited with " + exit + ": " + tail(log));
      }
      if (System.nanoTime() - deadline > 0) {
        kill();
        throw new IllegalStateException(
            "redis-server did not answer PING within " + READY_TIMEOUT + ": " + tail(log));
      }
      try {
        // Waits for the process to exit or for the next readiness probe, whichever is first.
        started.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        kill();
        throw new IllegalStateException("interrupted while starting redis-server", e);
      }
    }
  }

  /**
   * Whether the server on the port is {@code started}, not another process's server that took the
   * port before it could bind (its own then fails to start).
   */
  private boolean answeredBy(Process started) throws IOException {
    Object info = RespClient.call("127.0.0.1", port, Duration.ofSeconds(1), "INFO", "server");
    return info instanceof String text && text.contains("process_id:" + started.pid() + "\r\n");
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * The URL clients use, {@code redis://127.0.0.1:PORT}.
   *
   * @return the URL clients use, {@code redis://127.0.0.1:PORT}
   */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /**
   * The host, {@code 127.0.0.1}.
   *
   * @return the host, {@code 127.0.0.1}
   */
  public String host() {
    return "127.0.0.1";
  }

  /**
   * The port, the same across restarts.
   *
   * @return the port, the same across restarts
   */
  public int port() {
    return port;
  }

  /**
   * The server's working directory, which holds its log ({@code redis.log}).
   *
   * @return the server's working directory, which holds its log ({@code redis.log})
   */
  public Path directory() {
    return dir;
  }

  /**
   * Whether the process runs.
   *
   * @return whether the process runs
   */
  public boolean isRunning() {
    Process current = process;
    return current != null && current.isAlive();
  }

  /** Kills the server at once (SIGKILL), as a crash would; without persistence its data is gone. */
  public void stop() {
    kill();
  }

  /** Kills the server if it runs and starts it again on the same port, waiting until it answers. */
  public void restart() {
    kill();
    launch();
  }

  /**
   * Sends one command to this server; see {@link RespClient#call}.
   *
   * @param command the command and its arguments
   * @return the reply
   * @throws IOException when the server does not answer
   */
  public @Nullable Object call(String... command) throws IOException {
    return RespClient.call(host(), port, Duration.ofSeconds(5), command);
  }

  private void kill() {
    mutex.lock();
    try {
      Process current = process;
      if (current == null) {
        return;
      }
      DeathWatch running = watch;
      if (running != null) {
        running.stop();
        watch = null;
      }
      current.destroyForcibly();
      try {
        if (!current.waitFor(10, TimeUnit.SECONDS)) {
          LOG.warn("redis-server pid {} did not exit after SIGKILL", current.pid());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
      RUNNING.remove(this);
    } finally {
      mutex.unlock();
    }
  }

  /** Kills the server and deletes its working directory. */
  @Override
  public void close() {
    kill();
    mutex.lock();
    try {
      closed = true;
    } finally {
      mutex.unlock();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.debug("cannot delete {}: {}", dir, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "redis-server " + url() + (isRunning() ? "" : " (stopped)");
  }
}
