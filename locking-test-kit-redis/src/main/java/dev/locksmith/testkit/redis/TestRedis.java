package dev.locksmith.testkit.redis;

import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis server tests use, found in this order and never skipped:
 *
 * <ol>
 *   <li>the URL in the environment variable {@value #URL_VARIABLE}, when set;
 *   <li>a {@code redis-server} from the {@code PATH}, started on a free loopback port;
 *   <li>the {@code redis-server} binary that {@code com.github.codemonstur:embedded-redis} ships,
 *       started the same way, so that a machine with only a JDK passes.
 * </ol>
 *
 * <p>Testcontainers is not used: it would pull a large dependency tree into every module's tests
 * for a Docker engine that CI does not have; the two binary sources cover every machine.
 *
 * <p>{@link #sharedUrl()} is one server per JVM for tests that only use it. Tests that kill or
 * restart Redis take a {@link #startDedicated dedicated} server of their own.
 */
public final class TestRedis {
  /** The environment variable that points the tests at an existing server. */
  public static final String URL_VARIABLE = "LOCKSMITH_TEST_REDIS_URL";

  private static final Logger LOG = LoggerFactory.getLogger(TestRedis.class);
  private static final ReentrantLock SHARED_LOCK = new ReentrantLock();
  private static @Nullable String sharedUrl;

  private TestRedis() {}

  /**
   * The URL of the JVM's shared test server, such as {@code redis://127.0.0.1:41234}: {@value
   * #URL_VARIABLE} when set, else a server started once for this JVM and killed when it exits.
   *
   * @return the URL, {@code redis://127.0.0.1:PORT}
   */
  public static String sharedUrl() {
    SHARED_LOCK.lock();
    try {
      if (sharedUrl == null) {
        String fromEnv = System.getenv(URL_VARIABLE);
        if (fromEnv != null && !fromEnv.isBlank()) {
          LOG.info("Using the test Redis at {} from {}", fromEnv.strip(), URL_VARIABLE);
          sharedUrl = fromEnv.strip();
        } else {
          // Stays up until the JVM exits; the shutdown hook kills it.
          RedisServerProcess server = RedisServerProcess.start(RedisBinaries.find());
          sharedUrl = server.url();
        }
      }
      return sharedUrl;
    } finally {
      SHARED_LOCK.unlock();
    }
  }

  /**
   * Starts a server of the caller's own, from the {@code PATH} or else the embedded binary, for
   * tests that stop or restart it. Close it when done.
   *
   * @param extraArgs more {@code redis-server} arguments
   * @return the running server
   */
  public static RedisServerProcess startDedicated(String... extraArgs) {
    return RedisServerProcess.start(RedisBinaries.find(), extraArgs);
  }

  /**
   * Starts a dedicated server from the given executable; see {@link RedisBinaries}.
   *
   * @param binary the redis-server binary
   * @param extraArgs further redis-server arguments
   * @return the running server
   */
  public static RedisServerProcess startDedicated(Path binary, String... extraArgs) {
    return RedisServerProcess.start(binary, extraArgs);
  }
}
