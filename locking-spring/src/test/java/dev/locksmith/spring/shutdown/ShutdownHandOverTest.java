package dev.locksmith.spring.shutdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a Boot application in a JVM of its own while its scheduled job holds a lock: the
 * context lets the job end, the lease is released, and this JVM, acting as the other instance,
 * takes the same lock within a second of the job's end, not after the lease's 30 s ttl.
 */
class ShutdownHandOverTest {
  /** The longest accepted time from the job's end to another process holding the lock. */
  private static final Duration HAND_OVER_BOUND = Duration.ofSeconds(1);

  @TempDir Path dir;

  @Test
  void redisHandsOverWithinASecondOfTheJobsEnd() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      handOver("redis", redis.url());
    }
  }

  @Test
  void redissonClientBeanHandsOverWithinASecondOfTheJobsEnd() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      handOver("redis (RedissonClient bean)", ShutdownJobApp.REDISSON + redis.url(), redis.url());
    }
  }

  @Test
  void tcpHandsOverWithinASecondOfTheJobsEnd() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      handOver("tcp", "tcp://127.0.0.1:" + port);
    }
  }

  @Test
  void fileHandsOverWithinASecondOfTheJobsEnd() throws Exception {
    Path locks = Files.createDirectories(dir.resolve("locks"));
    handOver("file", locks.toUri().toString());
  }

  private void handOver(String label, String url) throws Exception {
    handOver(label, url, url);
  }

  /**
   * Runs the child with {@code childUrl}, sends it SIGTERM while its job runs and takes the lock
   * here through {@code url}.
   */
  private void handOver(String label, String childUrl, String url) throws Exception {
    Path markers = Files.createDirectories(dir.resolve("markers"));
    Path log = dir.resolve("child.log");
    Process child =
        MultiProcessHarness.startJvm(
            ShutdownJobApp.class.getName(), log, childUrl, markers.toString());
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(LockProviders.create(url)).build()) {
      await("the child's job to start (log " + log + ")")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> Files.exists(markers.resolve("started-1")) || !child.isAlive());
      assertThat(child.isAlive()).as("child alive, log:%n%s", read(log)).isTrue();

      child.destroy(); // SIGTERM
      Instant signalled = Instant.now();

      AtomicReference<Instant> acquiredAt = new AtomicReference<>();
      LockOptions options = LockOptions.named(ShutdownJobApp.LOCK_NAME);
      await("this JVM to take the lock after SIGTERM")
          .atMost(Duration.ofSeconds(45))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                Optional<Lease> lease = locksmith.tryAcquire(options);
                if (lease.isEmpty()) {
                  return false;
                }
                acquiredAt.set(Instant.now());
                lease.get().close();
                return true;
              });
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child exited").isTrue();

      String output = read(log);
      int runs = count(markers, "started-");
      assertThat(count(markers, "ended-"))
          .as("every started run ended, log:%n%s", output)
          .isEqualTo(runs);
      String[] last = Files.readString(markers.resolve("ended-" + runs)).split(" ");
      Instant ended = Instant.parse(last[0]);
      assertThat(last[1]).as("the running job was left to finish its work").isEqualTo("completed");
      assertThat(ended).as("the job ran on after SIGTERM").isAfter(signalled);
      assertThat(Instant.parse(Files.readString(markers.resolve("started-" + runs))))
          .as("no new run started after SIGTERM")
          .isBefore(signalled);
      Path released = markers.resolve("released-" + runs);
      assertThat(released).as("the engine released the last run's lease").exists();
      Path clientClosed = markers.resolve("client-closed");
      if (Files.exists(clientClosed)) {
        assertThat(Instant.parse(Files.readString(clientClosed)))
            .as("the RedissonClient bean closed after the release")
            .isAfterOrEqualTo(Instant.parse(Files.readString(released)));
      } else {
        assertThat(childUrl)
            .as("only the RedissonClient app has a client bean")
            .doesNotStartWith(ShutdownJobApp.REDISSON);
      }
      Duration handOver = Duration.between(ended, acquiredAt.get());
      System.out.printf(
          "shutdown hand-over %s: %d ms from the job's end to the lock taken here"
              + " (SIGTERM %d ms before the job's end)%n",
          label, handOver.toMillis(), Duration.between(signalled, ended).toMillis());
      assertThat(handOver).as("hand-over after the job's end").isLessThan(HAND_OVER_BOUND);
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static int count(Path markers, String prefix) throws IOException {
    try (Stream<Path> files = Files.list(markers)) {
      return (int) files.filter(f -> f.getFileName().toString().startsWith(prefix)).count();
    }
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
