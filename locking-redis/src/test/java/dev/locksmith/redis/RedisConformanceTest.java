package dev.locksmith.redis;

import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.FullContract;
import dev.locksmith.testkit.LockProviderContract;
import dev.locksmith.testkit.StoreLifecycle;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.RespClient;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's conformance suite against a Redis of its own (the lifecycle cases restart it),
 * faults through a proxy.
 *
 * <p>The server starts without persistence and reads an included config file that {@link
 * #storeLifecycle()} rewrites, as an operator edits {@code redis.conf}:
 *
 * <ul>
 *   <li>{@code restart}: {@code SHUTDOWN SAVE}, which writes the data set to an RDB file (and syncs
 *       the AOF once there is one), then a start that loads it;
 *   <li>{@code restartWithPersistenceAdded}: {@code CONFIG SET appendonly yes}, waiting for the AOF
 *       rewrite, {@code appendonly yes} in the included file, then the same restart, which loads
 *       the AOF;
 *   <li>{@code restartLosingState}: SIGKILL, the RDB and AOF files deleted and the included file
 *       emptied, then a start: a Redis without persistence that crashed.
 * </ul>
 */
class RedisConformanceTest extends LockProviderContract implements FullContract {
  private static final String MARK = "conformance:lifecycle-mark";
  private static Path configDir;
  private static Path persistenceConf;
  private static RedisServerProcess redis;
  private static Path dataDir;
  private final String url = redis.url() + "?prefix=t" + RedisTests.lockId().substring(5);

  @BeforeAll
  static void startRedis() throws IOException {
    configDir = Files.createTempDirectory("locksmith-conformance-redis");
    persistenceConf = configDir.resolve("persistence.conf");
    Files.writeString(persistenceConf, "");
    redis = TestRedis.startDedicated("--include", persistenceConf.toString());
    List<?> dir = (List<?>) redis.call("CONFIG", "GET", "dir");
    dataDir = Path.of(String.valueOf(dir.get(1)));
  }

  @AfterAll
  static void stopRedis() throws IOException {
    redis.close();
    deleteTree(configDir);
  }

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(url);
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    URI server = URI.create(url);
    FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort());
    String query = server.getRawQuery() == null ? "" : "?" + server.getRawQuery();
    return FaultyPath.through(
        proxy, LockProviders.create("redis://127.0.0.1:" + proxy.port() + query));
  }

  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() throws IOException {
        String mark = markData();
        shutDownSaving();
        redis.restart();
        expectMark(mark, "after a restart");
      }

      @Override
      public void restartLosingState() throws IOException {
        markData();
        redis.stop();
        Files.writeString(persistenceConf, "");
        Files.deleteIfExists(dataDir.resolve("dump.rdb"));
        Files.deleteIfExists(dataDir.resolve("appendonly.aof"));
        deleteTree(dataDir.resolve("appendonlydir"));
        redis.restart();
        expectMark(null, "after a restart losing the data");
        expectAppendOnly("no");
      }

      @Override
      public void restartWithPersistenceAdded() throws IOException {
        redis.call("CONFIG", "SET", "appendonly", "yes");
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  String info = String.valueOf(redis.call("INFO", "persistence"));
                  return info.contains("aof_enabled:1")
                      && info.contains("aof_rewrite_in_progress:0")
                      && info.contains("aof_rewrite_scheduled:0");
                });
        Files.writeString(persistenceConf, "appendonly yes\nappendfsync always\n");
        restart();
        expectAppendOnly("yes");
      }
    };
  }

  /** Writes a new value to {@link #MARK} and returns it, to tell kept data from lost. */
  private static String markData() throws IOException {
    String mark = RedisTests.lockId();
    redis.call("SET", MARK, mark);
    return mark;
  }

  private static void expectMark(String mark, String when) throws IOException {
    Object found = redis.call("GET", MARK);
    if (!Objects.equals(found, mark)) {
      throw new IllegalStateException(
          "the lifecycle did not do what it says: " + MARK + " " + when + " is " + found);
    }
  }

  private static void expectAppendOnly(String value) throws IOException {
    List<?> reply = (List<?>) redis.call("CONFIG", "GET", "appendonly");
    if (!value.equals(reply.get(1))) {
      throw new IllegalStateException("appendonly is " + reply.get(1) + ", expected " + value);
    }
  }

  /** {@code SHUTDOWN SAVE}: the server saves, syncs its AOF if on, and exits without a reply. */
  private static void shutDownSaving() throws IOException {
    try {
      redis.call("SHUTDOWN", "SAVE");
    } catch (RespClient.RespError refused) {
      throw refused;
    } catch (IOException closedWithoutReply) {
      // The expected outcome: the server exits before it could answer.
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> !redis.isRunning());
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }
}
