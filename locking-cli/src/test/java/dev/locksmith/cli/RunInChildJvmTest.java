package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.ChildJvmBuilder;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code locksmith} as its own JVM, through {@code Main.main}: what the real stderr holds (no
 * library logging around the one line), and SIGTERM to {@code run}.
 */
class RunInChildJvmTest {
  @TempDir Path dir;

  /** Starts {@code locksmith args}; its stderr goes to {@code stderr}, its stdout next to it. */
  private static ChildJvm locksmith(Path stderr, String... args) {
    return locksmithBuilder(stderr, args).start();
  }

  private static ChildJvmBuilder locksmithBuilder(Path stderr, String... args) {
    return ChildJvm.builder(Main.class)
        .jvmOptions("-XX:TieredStopAtLevel=1") // starts faster; these JVMs run for a second or two
        .args(args)
        .output(stderr.resolveSibling("stdout"))
        .errorOutput(stderr);
  }

  /** Starts {@code locksmith run --url url --key key rest...}, as {@link #locksmith} does. */
  private static ChildJvm run(Path stderr, String url, String key, String... rest) {
    String[] args =
        Stream.concat(Stream.of("run", "--url", url, "--key", key), Arrays.stream(rest))
            .toArray(String[]::new);
    return locksmith(stderr, args);
  }

  private static int exitOf(ChildJvm locksmith) throws InterruptedException {
    return locksmith.awaitExit(Duration.ofSeconds(60));
  }

  /**
   * SIGTERM, and SIGUSR1 and SIGALRM, which by default end a JVM at once without its shutdown hooks
   * (the lock was left to its ttl and COMMAND to the signaller's SIGKILL), stop COMMAND's group and
   * release the lock. The shell and everything it starts ignore SIGTERM: only the SIGKILL after
   * --grace ends them.
   */
  @ParameterizedTest
  @CsvSource({"TERM, 15", "USR1, 10", "ALRM, 14"})
  void aSignalToRunStopsTheWholeGroupAndReleasesTheLock(String signal, int number)
      throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      String url = "tcp://127.0.0.1:" + server.start();
      Path pidFile = dir.resolve("pid");
      Path stderr = dir.resolve("stderr");
      try (ChildJvm run =
              run(
                  stderr,
                  url,
                  signal,
                  "--grace",
                  "500ms",
                  "--",
                  "sh",
                  "-c",
                  "trap '' TERM; echo $$ > " + pidFile + "; while :; do sleep 0.05; done");
          LockProvider other = LockProviders.create(url)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
        long pgid = Long.parseLong(Files.readString(pidFile).strip());
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(run.pid())).start();
        assertThat(kill.waitFor()).isZero();
        assertThat(exitOf(run)).isEqualTo(128 + number);
        assertThat(GroupPs.liveMembers(pgid)).isEmpty();
        assertThat(Files.readAllLines(stderr))
            .containsExactly(
                "locksmith: stopped by a signal; stopping COMMAND and releasing the lock");
        assertThat(other.tryAcquire(LockRequest.of(signal, Duration.ofSeconds(1))))
            .as("released, not left to run out")
            .isPresent();
      }
    }
  }

  @Test
  void commandDoesNotOutliveARunThatWasKilled() throws Exception {
    assertNothingOutlivesAKilledRun("while :; do sleep 0.05; done", null);
  }

  @Test
  void processesThatMovedToAGroupOfTheirOwnDoNotOutliveARunThatWasKilled() throws Exception {
    // GNU timeout runs its command in a new group of COMMAND's session.
    Path worker = dir.resolve("worker");
    assertNothingOutlivesAKilledRun(
        "timeout 60 sh -c 'echo $$ > %1$s.tmp && mv %1$s.tmp %1$s && exec sleep 60' &"
                .formatted(worker)
            + " while :; do sleep 0.05; done",
        worker);
  }

  /**
   * Runs {@code sh -c 'echo $$ > PIDFILE; SCRIPT'} under {@code run}, SIGKILLs {@code run}, and
   * checks that COMMAND's group is gone soon after, and so is the process whose pid SCRIPT wrote to
   * {@code worker}, if given.
   */
  private void assertNothingOutlivesAKilledRun(String script, @Nullable Path worker)
      throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      String url = "tcp://127.0.0.1:" + server.start();
      Path pidFile = dir.resolve("pid");
      try (ChildJvm run =
          run(
              dir.resolve("stderr"),
              url,
              "killed",
              "--",
              "sh",
              "-c",
              "echo $$ > " + pidFile + "; " + script)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    Files.exists(pidFile)
                        && Files.size(pidFile) > 0
                        && (worker == null || Files.exists(worker)));
        long pgid = Long.parseLong(Files.readString(pidFile).strip());
        long workerPid = worker == null ? -1 : Long.parseLong(Files.readString(worker).strip());
        assertThat(GroupPs.liveMembers(pgid)).isNotEmpty();
        try {
          run.kill();
          assertThat(exitOf(run)).isEqualTo(137);
          await()
              .atMost(Duration.ofSeconds(5))
              .untilAsserted(
                  () -> {
                    assertThat(GroupPs.liveMembers(pgid))
                        .as("COMMAND's group after run got SIGKILL")
                        .isEmpty();
                    assertThat(workerPid < 0 || !GroupMembers.alive(workerPid))
                        .as("COMMAND's process in a group of its own after run got SIGKILL")
                        .isTrue();
                  });
        } finally {
          new ProcessBuilder("kill", "-KILL", "--", "-" + pgid).start().waitFor();
          if (workerPid > 0) {
            new ProcessBuilder("kill", "-KILL", Long.toString(workerPid)).start().waitFor();
          }
        }
      }
    }
  }

  @Test
  void theUntilTestRunsThroughBinShWhenPathHasNoSh() throws Exception {
    // It was not run at all: run said so, released the lock and exited 0, COMMAND's status.
    Path stderr = dir.resolve("stderr");
    Path ran = dir.resolve("until-ran");
    try (ChildJvm run =
        locksmithBuilder(
                stderr,
                "run",
                "--url",
                "mem:",
                "--key",
                "no-sh",
                "--until",
                "echo > " + ran,
                "--",
                "/bin/true")
            .environment("PATH", dir.resolve("no-bin").toString())
            .start()) {
      assertThat(exitOf(run)).isZero();
    }
    assertThat(Files.readAllLines(stderr)).isEmpty();
    assertThat(ran).exists();
  }

  @Test
  void theUntilTestWritesToStderrSoStdoutHoldsOnlyCommandsOutput() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      String url = "tcp://127.0.0.1:" + server.start();
      Path stderr = dir.resolve("stderr");
      Path done = dir.resolve("done");
      // The first test fails, the second (after COMMAND's line) succeeds.
      String test = "echo probe; test -f " + done + " || { touch " + done + "; false; }";
      try (ChildJvm run =
          run(
              stderr,
              url,
              "until-output",
              "--until",
              test,
              "--until-interval",
              "50ms",
              "--",
              "echo",
              "command-out")) {
        assertThat(exitOf(run)).isZero();
      }
      assertThat(Files.readAllLines(stderr.resolveSibling("stdout")))
          .containsExactly("command-out");
      assertThat(Files.readAllLines(stderr)).containsExactly("probe", "probe");
    }
  }

  @Test
  void aLeaseLostWhileAnUntilTestHangsEndsTheRunWithoutWaitingForTheTest() throws Exception {
    LockServer server = LockServer.builder().port(0).build();
    String url = "tcp://127.0.0.1:" + server.start();
    Path stderr = dir.resolve("stderr");
    Path started = dir.resolve("started");
    try (ChildJvm run =
        run(
            stderr,
            url,
            "until-hangs",
            "--until",
            "touch " + started + "; exec sleep 60",
            "--",
            "true")) {
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(started));
      server.close(); // the connection and its lease are gone
      assertThat(exitOf(run)).isEqualTo(70);
    } finally {
      server.close();
    }
    assertThat(Files.readAllLines(stderr))
        .singleElement()
        .asString()
        .startsWith("locksmith: lease on 'until-hangs' lost while waiting for --until (");
  }

  @Test
  void sigtermWhileWaitingForUntilKillsTheTestAndReleasesTheLock() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      String url = "tcp://127.0.0.1:" + server.start();
      Path stderr = dir.resolve("stderr");
      Path pidFile = dir.resolve("pid");
      try (ChildJvm run =
              run(
                  stderr,
                  url,
                  "until-signal",
                  "--until",
                  "echo $$ > " + pidFile + "; exec sleep 60",
                  "--",
                  "true");
          LockProvider other = LockProviders.create(url)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
        long test = Long.parseLong(Files.readString(pidFile).strip());
        run.terminate();
        assertThat(exitOf(run)).isEqualTo(143);
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> ProcessHandle.of(test).map(h -> !h.isAlive()).orElse(true));
        assertThat(Files.readAllLines(stderr))
            .containsExactly(
                "locksmith: stopped by a signal after COMMAND ended; releasing the lock");
        assertThat(other.tryAcquire(LockRequest.of("until-signal", Duration.ofSeconds(1))))
            .isPresent();
      }
    }
  }

  @Test
  void aProviderErrorIsOneLineOnTheRealStderrWithoutLibraryLogging() throws Exception {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      redis.call("SET", "locksmith:{broken}:lock", "not-a-hash");
      Path stderr = dir.resolve("stderr");
      try (ChildJvm run = run(stderr, redis.url(), "broken", "--", "true")) {
        assertThat(exitOf(run)).isEqualTo(69);
      }
      List<String> lines = Files.readAllLines(stderr);
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0))
          .startsWith("locksmith: the provider failed: ")
          .contains("WRONGTYPE")
          .doesNotContain("redis.call");
    }
  }
}
