package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code locksmith run} against a real TCP lock server, with real child processes. */
class RunCommandTest {
  @TempDir Path dir;
  @RegisterExtension final TcpLockServerFixture lockServer = new TcpLockServerFixture();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    CommandLine line = Main.commandLine();
    line.setErr(new PrintWriter(err, true));
    return line.execute(args);
  }

  /** {@code locksmith run --url <the server> --key key rest...}. */
  private int runKey(String key, String... rest) {
    return run(
        Stream.concat(Stream.of("run", "--url", lockServer.url(), "--key", key), Stream.of(rest))
            .toArray(String[]::new));
  }

  /** {@link #runKey} on another thread. */
  private CompletableFuture<Integer> runKeyInBackground(String key, String... rest) {
    return CompletableFuture.supplyAsync(() -> runKey(key, rest));
  }

  /** {@code locksmith run --url <the server> --key key options -- sh -c script}. */
  private int runScript(String key, List<String> options, String script) {
    return runKey(key, withScript(options, script));
  }

  /** {@link #runScript} on another thread. */
  private CompletableFuture<Integer> runScriptInBackground(
      String key, List<String> options, String script) {
    return runKeyInBackground(key, withScript(options, script));
  }

  private static String[] withScript(List<String> options, String script) {
    return Stream.concat(options.stream(), Stream.of("--", "sh", "-c", script))
        .toArray(String[]::new);
  }

  /**
   * Stops the lock server under a running {@code run} and returns the exit code it then ends with.
   */
  private int exitOnceTheServerIsGone(CompletableFuture<Integer> exit) throws Exception {
    lockServer.server().close(); // the server goes away: the session and its lease are gone
    return exit.get(20, TimeUnit.SECONDS);
  }

  /**
   * Runs {@code script} in the background until it wrote a process id to {@code pidFile}, then
   * takes the server away under it: {@code run}, still running, must end with 70 (lease lost).
   *
   * @return the process id the script wrote
   */
  private long pidOnceTheLeaseIsLost(String key, List<String> options, String script, Path pidFile)
      throws Exception {
    CompletableFuture<Integer> exit = runScriptInBackground(key, options, script);
    long pid = awaitPid(pidFile);
    assertThat(exit).isNotDone();
    assertThat(exitOnceTheServerIsGone(exit)).isEqualTo(70);
    return pid;
  }

  /** The process id a command wrote to {@code pidFile}, once it is there. */
  private static long awaitPid(Path pidFile) throws Exception {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
    return Long.parseLong(Files.readString(pidFile).strip());
  }

  @Test
  void runsTheCommandWithTheLeaseInItsEnvironment() throws Exception {
    Path out = dir.resolve("out");
    int exit =
        runScript(
            "backup",
            List.of(),
            "echo \"$LOCKSMITH_LOCK $LOCKSMITH_FENCING_TOKEN $LOCKSMITH_OWNER\" > " + out);
    assertThat(exit).isZero();
    String[] fields = Files.readString(out).strip().split(" ");
    assertThat(fields[0]).isEqualTo("backup");
    assertThat(Long.parseLong(fields[1])).isPositive();
    assertThat(fields[2]).isNotBlank();
    lockServer.assertFree("backup");
  }

  @Test
  void everyArgumentFromTheCommandOnIsTheCommandsOwnEvenWithoutDoubleDash() throws Exception {
    Path out = dir.resolve("args");
    Path atFile = Files.writeString(dir.resolve("at-file"), "not an argument list");
    String printArgs = "printf '%s\\n' \"$@\" > " + out;
    int exit =
        runKey("args", "sh", "-c", printArgs, "sh", "-v", "--ttl", "1h", "-h", "@" + atFile, "--");
    assertThat(exit).isZero();
    assertThat(Files.readAllLines(out))
        .containsExactly("-v", "--ttl", "1h", "-h", "@" + atFile, "--");
    assertThat(runKey("args", "--", "sh", "-c", printArgs, "sh", "@" + atFile)).isZero();
    assertThat(Files.readAllLines(out)).containsExactly("@" + atFile);
  }

  @Test
  void aDashVOfTheCommandDoesNotMakeLocksmithVerbose() {
    assertThat(Errors.verboseIn(new String[] {"run", "--url", "mem:v", "--key", "k", "grep", "-v"}))
        .isFalse();
    assertThat(Errors.verboseIn(new String[] {"run", "--url", "mem:v", "-v", "--key", "k", "true"}))
        .isTrue();
    assertThat(Errors.verboseIn(new String[] {"-v", "run", "--url", "mem:v", "--key", "k", "true"}))
        .isTrue();
    assertThat(Errors.verboseIn(new String[] {"run", "--bad-option", "-v"})).isTrue();
  }

  @Test
  void exitsWithTheCommandsOwnCode() {
    assertThat(runScript("k", List.of(), "exit 3")).isEqualTo(3);
  }

  @Test
  void skipExitsZeroAndNamesTheHolder() throws Exception {
    Path out = dir.resolve("ran");
    LeaseGrant held = lockServer.holdElsewhere("nightly");
    int exit = runKey("nightly", "--skip", "--", "touch", out.toString());
    assertThat(exit).isZero();
    assertThat(out).doesNotExist();
    assertThat(err.toString())
        .contains("skipped: held by")
        .contains("fencing token " + held.fencingToken());
  }

  @Test
  void failAndExpiredWaitExit75() {
    lockServer.holdElsewhere("nightly");
    assertThat(runKey("nightly", "--fail", "--", "true")).isEqualTo(75);
    assertThat(err.toString())
        .startsWith("locksmith: lock 'nightly' is busy, held by ")
        .containsOnlyOnce("held by");
    err.reset();
    assertThat(runKey("nightly", "--wait", "200ms", "--", "true")).isEqualTo(75);
    assertThat(err.toString())
        .startsWith("locksmith: lock 'nightly' still busy after waiting ")
        .containsOnlyOnce("held by");
  }

  @Test
  void waitRunsOnceTheHolderReleases() throws Exception {
    LeaseGrant held = lockServer.holdElsewhere("queue");
    CompletableFuture<Integer> exit = runKeyInBackground("queue", "--wait", "30s", "--", "true");
    await().until(() -> lockServer.other().status("queue").waiters() == 1);
    lockServer.other().release(held);
    assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void unreachableProviderExits69() throws Exception {
    int port = Ports.closed();
    assertThat(run("run", "--url", "tcp://127.0.0.1:" + port, "--key", "k", "--", "true"))
        .isEqualTo(69);
    assertThat(err.toString())
        .contains("locksmith: the provider failed: lock server 127.0.0.1:" + port)
        .contains("refused the connection");
  }

  @Test
  void usageErrorsExit64() {
    assertThat(runKey("k", "--ttl", "10x", "--", "true")).isEqualTo(64);
    assertThat(err.toString()).contains("'10x' is not a duration");
    assertThat(run("run", "--key", "k", "--", "true")).isEqualTo(64);
    assertThat(run("run", "--url", "etcd://h", "--key", "k", "--", "true")).isEqualTo(64);
    assertThat(err.toString()).contains("unknown scheme 'etcd'");
    assertThat(runKey("k", "--skip", "--fail", "--", "true")).isEqualTo(64);
    err.reset();
    assertThat(runKey("k", "--ttl", "0s", "--", "true")).isEqualTo(64);
    assertThat(err.toString()).startsWith("locksmith: ").contains("ttl must be positive");
  }

  @Test
  void commandThatCannotStartExits126() {
    assertThat(runKey("k", "--", dir.resolve("missing").toString())).isEqualTo(126);
  }

  @Test
  void lostLeaseStopsTheCommandAndExits70() throws Exception {
    Path started = dir.resolve("started");
    CompletableFuture<Integer> exit =
        runScriptInBackground(
            "long",
            List.of("--ttl", "600ms", "--grace", "2s"),
            "touch " + started + "; exec sleep 60");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(started));
    assertThat(exitOnceTheServerIsGone(exit)).isEqualTo(70);
    assertThat(err.toString()).contains("lease on 'long' lost");
  }

  @Test
  void lostLeaseAlsoKillsDescendantsThatIgnoreSigterm() throws Exception {
    Path pidFile = dir.resolve("child.pid");
    long child =
        pidOnceTheLeaseIsLost(
            "stubborn",
            List.of("--ttl", "600ms", "--grace", "500ms"),
            "sh -c 'trap \"\" TERM; echo $$ > "
                + pidFile
                + "; while true; do sleep 1; done' & wait",
            pidFile);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
  }

  @Test
  void untilKeepsTheLockUntilTheTestSucceeds() throws Exception {
    Path done = dir.resolve("done");
    CompletableFuture<Integer> exit =
        runScriptInBackground(
            "bg", List.of("--until", "test -f " + done, "--until-interval", "50ms"), "exit 0");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> lockServer.other().status("bg").holder() != null);
    assertThat(exit).isNotDone();
    Files.createFile(done);
    assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
    lockServer.assertFree("bg");
  }

  @Test
  void theUntilTestSeesTheLeaseAsCommandDoes() throws Exception {
    // The test ran without the lease's variables: one checking COMMAND's work by its fencing token
    // checked the wrong file, or, in a nested run, the outer run's lock.
    Path commandSaw = dir.resolve("command-saw");
    Path testSaw = dir.resolve("test-saw");
    int exit =
        runScript(
            "until-env",
            List.of(
                "--until",
                "echo \"$LOCKSMITH_LOCK $LOCKSMITH_FENCING_TOKEN $LOCKSMITH_OWNER\" > " + testSaw,
                "--until-interval",
                "50ms"),
            "echo \"$LOCKSMITH_LOCK $LOCKSMITH_FENCING_TOKEN $LOCKSMITH_OWNER\" > " + commandSaw);
    assertThat(exit).isZero();
    assertThat(Files.readString(testSaw))
        .startsWith("until-env ")
        .isEqualTo(Files.readString(commandSaw));
  }

  @Test
  void commandLeadsAProcessGroupOfItsOwn() throws Exception {
    Path out = dir.resolve("group");
    int exit =
        runScript("group", List.of(), "echo $$ $(ps -o pgid= -p $$) $(ps -o sid= -p $$) > " + out);
    assertThat(exit).isZero();
    String[] ids = Files.readString(out).strip().split("\\s+");
    assertThat(ids[1]).as("pgid").isEqualTo(ids[0]);
    assertThat(ids[2]).as("session").isEqualTo(ids[0]);
  }

  @Test
  void backgroundJobsOfTheCommandKeepTheLockUntilTheyExit() throws Exception {
    Path done = dir.resolve("done");
    int exit = runScript("bg-job", List.of(), "(sleep 0.3; touch " + done + ") & exit 4");
    assertThat(exit).isEqualTo(4);
    assertThat(done).as("the background job finished before run returned").exists();
    lockServer.assertFree("bg-job");
  }

  @Test
  void lostLeaseStopsBackgroundJobsAfterTheCommandExited() throws Exception {
    Path pidFile = dir.resolve("job.pid");
    long job =
        pidOnceTheLeaseIsLost(
            "bg-lost", List.of("--grace", "2s"), "sleep 60 & echo $! > " + pidFile, pidFile);
    assertThat(GroupPs.alive(job)).as("the background job").isFalse();
  }

  @Test
  void lostLeaseAlsoStopsAChildThatLeftTheGroupWhileCommandRuns() throws Exception {
    Path pidFile = dir.resolve("escapee.pid");
    long escapee =
        pidOnceTheLeaseIsLost(
            "escapee",
            List.of("--grace", "2s"),
            "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 60' & wait",
            pidFile);
    assertThat(GroupPs.alive(escapee)).as("the child in a session of its own").isFalse();
  }

  @Test
  void verboseAddsTheStackTraceAfterTheLine() throws Exception {
    assertThat(
            run(
                "run",
                "-v",
                "--url",
                "tcp://127.0.0.1:" + Ports.closed(),
                "--key",
                "k",
                "--",
                "true"))
        .isEqualTo(69);
    List<String> lines = err.toString().lines().toList();
    assertThat(lines.get(0)).startsWith("locksmith: the provider failed: lock server ");
    assertThat(lines.subList(1, lines.size())).anyMatch(line -> line.startsWith("\tat "));
    err.reset();
    assertThat(
            run(
                "--verbose",
                "run",
                "--url",
                lockServer.url(),
                "--key",
                "k",
                "--ttl",
                "10x",
                "--",
                "true"))
        .isEqualTo(64);
    assertThat(err.toString().lines().toList())
        .first()
        .asString()
        .startsWith("locksmith: Invalid value for option '--ttl'");
    assertThat(err.toString()).contains("\tat ");
  }
}
