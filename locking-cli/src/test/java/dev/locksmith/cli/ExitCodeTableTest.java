package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every row of the README's exit-code table and the bad inputs of the issue, each asserting the
 * exit code, that stderr holds exactly the expected lines (one {@code locksmith:} line for every
 * failure, none when COMMAND ran), and what the line says.
 */
class ExitCodeTableTest {
  @TempDir static Path dir;
  private static LockServer server;
  private static String url;
  private static LockProvider other;
  private static RedisServerProcess redis;

  @BeforeAll
  static void start() throws Exception {
    server = LockServer.builder().port(0).build();
    url = "tcp://127.0.0.1:" + server.start();
    other = LockProviders.create(url);
    redis = TestRedis.startDedicated();
  }

  @AfterAll
  static void stop() {
    other.close();
    server.close();
    redis.close();
  }

  /**
   * One case.
   *
   * @param name what it shows
   * @param exit the exit code
   * @param lines how many lines stderr holds
   * @param says what the line contains
   * @param scenario runs the command line and returns its exit code
   */
  record Row(String name, int exit, int lines, String says, Scenario scenario) {
    @Override
    public String toString() {
      return exit + ": " + name;
    }
  }

  @FunctionalInterface
  interface Scenario {
    int run(Cli cli) throws Exception;
  }

  /** Runs {@code locksmith} in this JVM with stderr captured. */
  static final class Cli {
    final StampedLines err = new StampedLines();

    int run(String... args) {
      CommandLine line = Main.commandLine();
      line.setOut(new PrintWriter(Writer.nullWriter(), true));
      line.setErr(new PrintWriter(err, true));
      return line.execute(args);
    }
  }

  private static Row row(String name, int exit, String says, Scenario scenario) {
    return new Row(name, exit, 1, says, scenario);
  }

  private static Scenario run(String... args) {
    return cli -> cli.run(args);
  }

  private static Scenario runKey(String key, String... rest) {
    return cli -> {
      List<String> args = new ArrayList<>(List.of("run", "--url", url, "--key", key));
      args.addAll(List.of(rest));
      return cli.run(args.toArray(String[]::new));
    };
  }

  private static void holdElsewhere(String key) {
    other.tryAcquire(LockRequest.of(key, Duration.ofSeconds(30))).orElseThrow();
  }

  static Stream<Row> rows() {
    return Stream.of(
        new Row("COMMAND's own exit code", 3, 0, "", runKey("own", "--", "sh", "-c", "exit 3")),
        new Row("COMMAND succeeded", 0, 0, "", runKey("ok", "--", "true")),
        row(
            "--skip and the lock is busy",
            0,
            "locksmith: skipped: held by",
            cli -> {
              holdElsewhere("skip");
              return runKey("skip", "--skip", "--", "true").run(cli);
            }),
        row("run --key empty", 64, "--key must not be empty", runKey("", "--", "true")),
        row(
            "run --key with a line break",
            64,
            "--key must not hold a line break",
            runKey("a\nb", "--", "true")),
        row(
            "run --name with a line break",
            64,
            "--name must not hold a line break, was 'a\\nb'",
            runKey("k", "--name", "a\nb", "--", "true")),
        row(
            "status --key empty",
            64,
            "--key must not be empty",
            run("status", "--url", "mem:", "--key", "")),
        row(
            "status --key with a line break",
            64,
            "--key must not hold a line break",
            run("status", "--url", "mem:", "--key", "a\rb")),
        row(
            "unknown option",
            64,
            "Unknown option: '--bogus' (see 'locksmith run --help')",
            runKey("k", "--bogus", "--", "true")),
        row(
            "missing --url",
            64,
            "Missing required option: '--url=<url>'",
            run("run", "--key", "k", "--", "true")),
        row(
            "missing COMMAND",
            64,
            "Missing required parameter: 'COMMAND'",
            run("run", "--url", "mem:", "--key", "k")),
        row(
            "bad duration",
            64,
            "'10x' is not a duration",
            runKey("k", "--ttl", "10x", "--", "true")),
        row(
            "--ttl 200000d overflows",
            64,
            "'200000d' is longer than the longest duration Locksmith accepts, 365d",
            runKey("k", "--ttl", "200000d", "--", "true")),
        row(
            "--ttl in ms overflows",
            64,
            "'9223372036854775807ms' is longer than the longest",
            runKey("k", "--ttl", "9223372036854775807ms", "--", "true")),
        row(
            "--ttl in ISO-8601 overflows",
            64,
            "'P1000000000D' is longer than the longest",
            runKey("k", "--ttl", "P1000000000D", "--", "true")),
        row(
            "--wait overflows",
            64,
            "'99999999d' is longer than the longest",
            runKey("k", "--wait", "99999999d", "--", "true")),
        row(
            "--grace overflows",
            64,
            "'99999999d' is longer than the longest",
            runKey("k", "--grace", "99999999d", "--", "true")),
        row(
            "zero --ttl",
            64,
            "--ttl must be positive, was 0s",
            runKey("k", "--ttl", "0s", "--", "true")),
        row(
            "zero --connect-timeout",
            64,
            "--connect-timeout must be positive",
            runKey("k", "--connect-timeout", "0ms", "--", "true")),
        row(
            "--busy-exit-code out of range",
            64,
            "--busy-exit-code must be 0 to 255, was 256",
            runKey("k", "--busy-exit-code", "256", "--", "true")),
        row(
            "--skip with --fail",
            64,
            "--skip, --fail are mutually exclusive",
            runKey("k", "--skip", "--fail", "--", "true")),
        row(
            "unknown provider scheme",
            64,
            "unknown scheme 'etcd'",
            run("run", "--url", "etcd://h", "--key", "k", "--", "true")),
        row(
            "unknown URL parameter",
            64,
            "has unknown parameter 'nope'",
            run("run", "--url", url + "?nope=1", "--key", "k", "--", "true")),
        row(
            "demo --workers out of range",
            64,
            "--workers must be 1 to 16, was 0",
            run("demo", "--workers", "0")),
        row(
            "demo --sections not positive",
            64,
            "--sections must be positive, was 0",
            run("demo", "--sections", "0")),
        row(
            "demo zero --ttl",
            64,
            "--ttl must be at least 1ms, was 0s",
            run("demo", "--ttl", "0s")),
        row(
            "demo --url with a directory that does not exist",
            69,
            "does not exist",
            cli ->
                timed(
                    Duration.ofSeconds(10),
                    () -> cli.run("demo", "--url", "file:///nonexistent/locksmith-demo-locks"))),
        row(
            "demo --dir under a file",
            64,
            "cannot create --dir ",
            cli -> {
              Path file = Files.writeString(dir.resolve("a-file"), "");
              return cli.run("demo", "--dir", file.resolve("demo").toString());
            }),
        row(
            "demo --url mem:, one store per worker JVM",
            64,
            "--url mem: is not shared between the worker JVMs",
            run("demo", "--url", "mem:")),
        row("no command", 64, "no command given; use run, server, status, prune or demo", run()),
        row("unknown command", 64, "unknown command 'frob'", run("frob")),
        row(
            "unknown option before a command",
            64,
            "unknown option '--frob'; use run, server, status, prune or demo",
            run("--frob")),
        row(
            "server --secret-file that does not exist",
            64,
            "locksmith: cannot read --secret-file /nonexistent: no such file",
            run("server", "--port", "0", "--secret-file", "/nonexistent")),
        row(
            "server --tls-cert without --tls-key",
            64,
            "--tls-cert and --tls-key must be given together",
            run("server", "--port", "0", "--tls-cert", "/nonexistent.pem")),
        row(
            "server --tls-cert that does not exist",
            64,
            "cannot read --tls-cert /nonexistent.pem: no such file",
            run("server", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key")),
        row(
            "server --port out of range",
            64,
            "--port must be 0 to 65535, was 70000",
            run("server", "--port", "70000")),
        row(
            "status without --key where the provider cannot list",
            64,
            "cannot list its locks; name one with --key",
            cli -> cli.run("status", "--url", dir.toUri().toString())),
        row(
            "run without the secret a tcp:// server wants",
            64,
            "the server needs a secret: add secret-file=PATH to the URL",
            ExitCodeTableTest::withoutTheServersSecret),
        row(
            "provider refuses the connection",
            69,
            "refused the connection",
            cli ->
                cli.run(
                    "run",
                    "--url",
                    "tcp://127.0.0.1:" + Ports.closed(),
                    "--key",
                    "k",
                    "--",
                    "true")),
        row(
            "server accepts and never answers",
            69,
            "within --connect-timeout 1s",
            cli ->
                againstASilentServer(
                    url ->
                        cli.run(
                            "run",
                            "--url",
                            url,
                            "--key",
                            "k",
                            "--connect-timeout",
                            "1s",
                            "--",
                            "true"))),
        row(
            "lock server counters (status without --key) never answered",
            69,
            "within --connect-timeout 1s",
            cli ->
                againstASilentServer(
                    url -> cli.run("status", "--url", url, "--connect-timeout", "1s"))),
        row(
            "rediss:// to a plain Redis",
            69,
            "cannot reach rediss://127.0.0.1:",
            cli ->
                timed(
                    Duration.ofSeconds(4),
                    () ->
                        cli.run(
                            "status",
                            "--url",
                            "rediss://127.0.0.1:" + redis.port(),
                            "--key",
                            "k",
                            "--connect-timeout",
                            "1s"))),
        row(
            "Redis error, without Lua source",
            69,
            "WRONGTYPE Operation against a key holding the wrong kind of value",
            cli -> {
              redis.call("SET", "locksmith:{wrongtype}:lock", "not-a-hash");
              return cli.run("run", "--url", redis.url(), "--key", "wrongtype", "--", "true");
            }),
        row(
            "a provider failing all through --wait (Redis out of memory): not busy",
            69,
            "not taken: the provider failed until --wait ran out (1",
            cli -> {
              redis.call("CONFIG", "SET", "maxmemory", "1");
              try {
                return cli.run(
                    "run", "--url", redis.url(), "--key", "oom", "--wait", "1s", "--", "true");
              } finally {
                redis.call("CONFIG", "SET", "maxmemory", "0");
              }
            }),
        row(
            "grant arrives with under half its ttl left: COMMAND does not start",
            69,
            "use a longer ttl",
            ExitCodeTableTest::lateGrant),
        row(
            "a lock id over the lock server's limit",
            69,
            "the provider refused the request",
            cli ->
                cli.run(
                    "status",
                    "--url",
                    "tcp://127.0.0.1:" + server.port(),
                    "--key",
                    "k".repeat(2_000))),
        row(
            "status of an unreachable provider",
            69,
            "refused the connection",
            cli -> cli.run("status", "--url", "tcp://127.0.0.1:" + Ports.closed(), "--key", "k")),
        row(
            "server port already in use",
            69,
            "cannot start the lock server",
            cli -> cli.run("server", "--port", Integer.toString(server.port()))),
        row(
            "lease lost while COMMAND runs",
            70,
            "locksmith: lease on 'lost' lost (",
            cli -> leaseLost(cli, "lost")),
        row(
            "lease lost, with --lost-exit-code",
            4,
            "locksmith: lease on 'lost-code' lost (",
            cli -> leaseLost(cli, "lost-code", "--lost-exit-code", "4")),
        row(
            "busy with --fail",
            75,
            "locksmith: lock 'fail' is busy, held by",
            cli -> {
              holdElsewhere("fail");
              return runKey("fail", "--fail", "--", "true").run(cli);
            }),
        row(
            "busy with --fail, with --busy-exit-code (flock's --conflict-exit-code)",
            3,
            "locksmith: lock 'fail-code' is busy, held by",
            cli -> {
              holdElsewhere("fail-code");
              return runKey("fail-code", "--fail", "--busy-exit-code", "3", "--", "true").run(cli);
            }),
        row(
            "--wait ran out",
            75,
            "locksmith: lock 'wait' still busy after waiting 2",
            cli -> {
              holdElsewhere("wait");
              return runKey("wait", "--wait", "200ms", "--", "true").run(cli);
            }),
        row(
            "COMMAND does not exist",
            126,
            "cannot run COMMAND '/nonexistent/x': no such file",
            runKey("k", "--", "/nonexistent/x")),
        row(
            "COMMAND not on PATH",
            126,
            "not found on PATH",
            runKey("k", "--", "no-such-command-locksmith")),
        row(
            "COMMAND not executable",
            126,
            "not executable",
            cli -> {
              Path script = Files.writeString(dir.resolve("plain.sh"), "echo hi\n");
              return runKey("k", "--", script.toString()).run(cli);
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void exitCodeAndOneLine(Row row) throws Exception {
    Cli cli = new Cli();
    int exit = row.scenario().run(cli);
    List<String> lines = cli.err.texts();
    assertThat(exit).as("exit code; stderr %s", lines).isEqualTo(row.exit());
    assertThat(lines).as("stderr").hasSize(row.lines());
    if (row.lines() > 0) {
      String line = lines.get(0);
      assertThat(line).startsWith("locksmith: ").contains(row.says()).hasSizeLessThan(500);
      assertThat(line).doesNotContain("held by another owner held by").doesNotContain("script");
      assertThat(line.split("held by", -1)).as("'held by' at most once").hasSizeLessThan(3);
    }
  }

  /** Replies come 700 ms late, so a 1s grant, and its renewal, arrive with under half left. */
  private static int lateGrant(Cli cli) throws Exception {
    Path ran = dir.resolve("late-grant-ran");
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", server.port())) {
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(700));
      int exit =
          cli.run(
              "run",
              "--url",
              "tcp://" + proxy.host() + ":" + proxy.port(),
              "--key",
              "late",
              "--ttl",
              "1s",
              "--fail",
              "--",
              "touch",
              ran.toString());
      assertThat(ran).as("COMMAND started on a late grant").doesNotExist();
      return exit;
    }
  }

  private static int withoutTheServersSecret(Cli cli) throws Exception {
    Path ran = dir.resolve("ran-without-secret");
    try (LockServer guarded = LockServer.builder().port(0).secret("s3cret").build()) {
      int exit =
          cli.run(
              "run",
              "--url",
              "tcp://127.0.0.1:" + guarded.start(),
              "--key",
              "k",
              "--",
              "touch",
              ran.toString());
      assertThat(ran).as("COMMAND ran without a lock").doesNotExist();
      return exit;
    }
  }

  private static int leaseLost(Cli cli, String key, String... options) throws Exception {
    Path started = dir.resolve(key + "-started");
    LockServer own = LockServer.builder().port(0).build();
    String ownUrl = "tcp://127.0.0.1:" + own.start();
    CompletableFuture<Integer> exit;
    try {
      exit =
          CompletableFuture.supplyAsync(
              () ->
                  cli.run(
                      Stream.of(
                              List.of("run", "--url", ownUrl, "--key", key, "--grace", "2s"),
                              List.of(options),
                              List.of("--", "sh", "-c", "touch " + started + "; exec sleep 60"))
                          .flatMap(List::stream)
                          .toArray(String[]::new)));
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(started));
    } finally {
      own.close();
    }
    return exit.get(20, TimeUnit.SECONDS);
  }

  /**
   * Runs {@code call} with the URL of a server whose kernel completes connections that nothing ever
   * reads or answers, and checks that it ends within 4 s.
   */
  private static int againstASilentServer(ToIntFunction<String> call) throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String url = "tcp://127.0.0.1:" + silent.getLocalPort();
      return timed(Duration.ofSeconds(4), () -> call.applyAsInt(url));
    }
  }

  /** Runs {@code call} and checks it returned within {@code bound}. */
  private static int timed(Duration bound, IntSupplier call) {
    long start = System.nanoTime();
    int exit = call.getAsInt();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(bound);
    return exit;
  }
}
