package dev.locksmith.chaos;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import dev.locksmith.testkit.jdbc.TestPostgres;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A real lock store for one scenario run: a lock directory, an in-process TCP lock server with a
 * data directory, a dedicated {@code redis-server} child process, a dedicated PostgreSQL server for
 * the JDBC provider, or a ZooKeeper server in the test JVM (Curator's {@code TestingServer}). Never
 * the machine's Redis, PostgreSQL or ZooKeeper.
 */
abstract class Backend implements AutoCloseable {

  /** The providers under test. */
  enum Kind {
    FILE,
    TCP,
    REDIS,
    JDBC,
    ZOOKEEPER;

    /** The scheme as users write it, for reports. */
    String scheme() {
      return switch (this) {
        case FILE -> "file:";
        case TCP -> "tcp://";
        case REDIS -> "redis://";
        case JDBC -> "jdbc:postgresql:";
        case ZOOKEEPER -> "zk://";
      };
    }

    /**
     * Whether the provider promises FIFO hand-off to waiters: the TCP server's queue, ZooKeeper's
     * sequential nodes.
     */
    boolean promisesFifo() {
      return this == TCP || this == ZOOKEEPER;
    }

    /**
     * Whether a call made while the server is down for a second fails. A ZooKeeper client instead
     * waits for its connection for up to the call bound (2 s here), the JDBC provider retries a
     * failed connection on fresh ones within that bound, and Redisson holds a command while it
     * reconnects, up to its response timeout (2 s here), so a 1 s restart may show only as leases
     * reported lost, if one was held at that moment, or not at all (the Redis of scenario 4 keeps
     * every write, so its leases survive); their backends check instead that the server refused
     * connections while it was down.
     */
    boolean failsCallsDuringOutage() {
      return this == FILE || this == TCP;
    }

    /**
     * Starts a fresh store under {@code dir}; {@code durable} asks Redis to persist every write.
     */
    Backend start(Path dir, boolean durable) {
      try {
        Files.createDirectories(dir);
        return switch (this) {
          case FILE -> new FileBackend(dir.resolve("locks"));
          case TCP -> new TcpBackend(dir.resolve("tcp-data"));
          case REDIS -> new RedisBackend(durable);
          case JDBC -> new JdbcBackend();
          case ZOOKEEPER -> new ZooKeeperBackend(dir.resolve("zk-data"));
        };
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The ZooKeeper provider's base path and parameters in every scenario. */
  static final String ZK_PATH_AND_PARAMETERS =
      "/chaos?sessionTimeout=2s&connectionTimeout=2s&timeout=2s";

  /** The lock table of the JDBC provider's scenarios. */
  static final String JDBC_TABLE = "chaos_locks";

  /** The file provider's clock-skew allowance the suite configures. */
  static final Duration FILE_SKEW = Duration.ofMillis(200);

  /** The provider URL clients use. */
  abstract String url();

  /** The provider URL for a client that reaches the server on another loopback port. */
  String urlThrough(int port) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no server");
  }

  /** A connection to the database as its superuser; the caller closes it. */
  Connection admin() throws SQLException {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no database");
  }

  /** How long past a lease's TTL the provider may keep it held (the file provider's skew). */
  Duration expiryAllowance() {
    return Duration.ZERO;
  }

  /**
   * Kills or stops the server, leaves it down for {@code downtime} (the fault's length), and starts
   * it again on the same port with the same data.
   */
  void restart(Duration downtime) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no server");
  }

  /** Waits out a deliberate outage: the length of the injected fault, not a synchronisation. */
  static void stayDown(Duration downtime) {
    java.util.concurrent.locks.LockSupport.parkNanos(downtime.toNanos());
  }

  @Override
  public abstract void close();

  /**
   * The outage of a server process: stops it, checks that it refuses connections, waits out {@code
   * downtime} and starts it again.
   */
  static void outage(String server, int port, Runnable stop, Duration downtime, Runnable start) {
    stop.run();
    assertRefusing(port, server);
    stayDown(downtime);
    start.run();
  }

  /** Clients may not notice a short outage: checks that there was one. */
  static void assertRefusing(int port, String server) {
    try (java.net.Socket probe = new java.net.Socket("127.0.0.1", port)) {
      throw new IllegalStateException(server + " still accepts connections after its stop");
    } catch (IOException refused) {
      // down, as it should be
    }
  }

  private static final class FileBackend extends Backend {
    private final Path dir;

    FileBackend(Path dir) throws IOException {
      this.dir = Files.createDirectories(dir);
    }

    @Override
    String url() {
      return "file://"
          + dir.toAbsolutePath()
          + "?skew="
          + FILE_SKEW.toMillis()
          + "ms&poll-max=20ms";
    }

    @Override
    Duration expiryAllowance() {
      return FILE_SKEW;
    }

    @Override
    public void close() {}
  }

  private static final class TcpBackend extends Backend {
    private final Path dataDir;
    private LockServer server;
    private final int port;

    TcpBackend(Path dataDir) throws IOException {
      this.dataDir = Files.createDirectories(dataDir);
      this.server = LockServer.builder().port(LoopbackPorts.free()).dataDir(dataDir).build();
      this.port = server.start();
    }

    @Override
    String url() {
      return "tcp://127.0.0.1:" + port;
    }

    @Override
    String urlThrough(int proxyPort) {
      return "tcp://127.0.0.1:" + proxyPort;
    }

    @Override
    void restart(Duration downtime) {
      server.close();
      stayDown(downtime);
      try {
        server = LockServer.builder().port(port).dataDir(dataDir).build();
        server.start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot restart the lock server on port " + port, e);
      }
    }

    @Override
    public void close() {
      server.close();
    }
  }

  private static final class RedisBackend extends Backend {
    // Short client timeouts so that calls fail fast while the server is down.
    private static final String FAST =
        "?timeout=2s&connect-timeout=5s&retry-attempts=1&retry-interval=200ms&pool-size=4";
    private final RedisServerProcess redis;

    RedisBackend(boolean durable) {
      this.redis =
          durable
              ? TestRedis.startDedicated("--appendonly", "yes", "--appendfsync", "always")
              : TestRedis.startDedicated();
    }

    @Override
    String url() {
      return redis.url() + FAST;
    }

    @Override
    String urlThrough(int proxyPort) {
      return "redis://127.0.0.1:" + proxyPort + FAST;
    }

    @Override
    void restart(Duration downtime) {
      outage("Redis", redis.port(), redis::stop, downtime, redis::restart);
    }

    @Override
    public void close() {
      redis.close();
    }
  }

  private static final class JdbcBackend extends Backend {
    // Short call bound so that calls fail fast while the server is down.
    private static final String PARAMETERS = "table=" + JDBC_TABLE + "&timeout=2s&poolSize=4";
    private final TestPostgres postgres = TestPostgres.start();

    @Override
    String url() {
      return postgres.serverUrl(PARAMETERS);
    }

    @Override
    String urlThrough(int proxyPort) {
      return "jdbc:postgresql://127.0.0.1:" + proxyPort + "/postgres?user=postgres&" + PARAMETERS;
    }

    @Override
    Connection admin() throws SQLException {
      return postgres.admin();
    }

    @Override
    void restart(Duration downtime) {
      outage("PostgreSQL", postgres.port(), postgres::stop, downtime, this::startAgain);
    }

    private void startAgain() {
      try {
        postgres.startServer();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot restart PostgreSQL on port " + postgres.port(), e);
      }
    }

    @Override
    public void close() {
      postgres.close();
    }
  }

  private static final class ZooKeeperBackend extends Backend {
    private final ZkServers.Server server;

    ZooKeeperBackend(Path dataDir) throws IOException {
      this.server = ZkServers.server(Files.createDirectories(dataDir));
    }

    @Override
    String url() {
      return urlThrough(server.port());
    }

    @Override
    String urlThrough(int port) {
      return "zk://127.0.0.1:" + port + ZK_PATH_AND_PARAMETERS;
    }

    @Override
    void restart(Duration downtime) {
      outage("ZooKeeper", server.port(), server::stop, downtime, server::start);
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
