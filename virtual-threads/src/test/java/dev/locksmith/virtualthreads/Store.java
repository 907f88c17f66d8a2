package dev.locksmith.virtualthreads;

import static org.awaitility.Awaitility.await;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.jdbc.TestPostgres;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;

/** A lock store of each provider, started for one test on loopback, and its provider URL. */
enum Store {
  MEM,
  FILE,
  TCP,
  REDIS,
  POSTGRES,
  ZOOKEEPER;

  /** A started store; closing stops it. */
  interface Running extends AutoCloseable {
    String url();

    /**
     * Waits until what a run left behind in the background has ended: for Redis, the wake-up
     * channels that linger after their last waiter, so that Redisson's unsubscribe path has run
     * (and loaded its classes) before a measured run.
     */
    default void settle() {}

    @Override
    void close() throws Exception;
  }

  /** Starts the store, keeping what it writes under {@code dir}. */
  Running start(Path dir) throws Exception {
    return switch (this) {
      case MEM -> running("mem:", () -> {});
      case FILE ->
          running(
              "file://" + dir.resolve("locks").toAbsolutePath() + "?create-dirs=true", () -> {});
      case TCP -> {
        LockServer server = LockServer.builder().port(0).build();
        yield running("tcp://127.0.0.1:" + startServer(server), server::close);
      }
      case REDIS -> {
        RedisServerProcess redis = TestRedis.startDedicated();
        Running running = running(redis.url(), redis::close);
        yield new Running() {
          @Override
          public String url() {
            return running.url();
          }

          @Override
          public void settle() {
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () ->
                        redis.call("PUBSUB", "CHANNELS") instanceof List<?> subscribed
                            && subscribed.isEmpty());
          }

          @Override
          public void close() throws Exception {
            running.close();
          }
        };
      }
      case POSTGRES -> {
        TestPostgres postgres = TestPostgres.start();
        yield running(postgres.serverUrl("table=vt_locks"), postgres::close);
      }
      case ZOOKEEPER -> {
        TestingServer zk = TestZooKeeper.start(dir.resolve("zk"));
        yield running("zk://127.0.0.1:" + zk.getPort() + "/vt", zk::close);
      }
    };
  }

  private static int startServer(LockServer server) {
    try {
      return server.start();
    } catch (IOException e) {
      server.close();
      throw new UncheckedIOException(e);
    }
  }

  private static Running running(String url, Stopper stopper) {
    return new Running() {
      @Override
      public String url() {
        return url;
      }

      @Override
      public void close() throws Exception {
        stopper.stop();
      }
    };
  }

  @FunctionalInterface
  private interface Stopper {
    void stop() throws Exception;
  }
}
