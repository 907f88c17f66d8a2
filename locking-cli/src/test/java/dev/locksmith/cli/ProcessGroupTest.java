package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** COMMAND's process group through each launcher this host has, stopped frozen-first. */
class ProcessGroupTest {
  /** SIGSTOP's number on Linux, whose {@code /proc} the pending-signal check reads. */
  private static final int SIGSTOP = 19;

  @TempDir Path dir;

  static Stream<Launcher> launchers() {
    List<Launcher> launchers = new ArrayList<>();
    Executables.onPath("setsid", "/usr/bin/setsid").map(Launcher::setsid).ifPresent(launchers::add);
    Executables.onPath("perl", "/usr/bin/perl").map(Launcher::perl).ifPresent(launchers::add);
    assertThat(launchers).as("setsid or perl on this host").isNotEmpty();
    return launchers.stream();
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void commandLeadsItsGroupAndEveryMemberIsFrozenBeforeTheStopIsReported(Launcher launcher)
      throws Exception {
    Path started = dir.resolve("started");
    ProcessBuilder builder =
        new ProcessBuilder(
                "sh", "-c", "touch " + started + "; while :; do sh -c 'sleep 0.01'; done")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      assertThat(group.isolated()).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(started));
      assertThat(GroupPs.liveMembers(group.pgid())).isNotEmpty();

      List<String> whenReported = new ArrayList<>();
      boolean gone =
          group.stop(
              Duration.ofSeconds(5),
              () -> {
                try {
                  // Judged now, from one read of each member's status: ps's STAT and a later look
                  // at /proc could straddle the moment a pending SIGSTOP takes effect.
                  for (String member : GroupPs.liveMembers(group.pgid())) {
                    whenReported.add(member + (frozen(member) ? " [frozen]" : " [running]"));
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });

      assertThat(gone).isTrue();
      assertThat(whenReported)
          .as("members when the stop is reported: stopped, or SIGSTOP pending (a fork in flight)")
          .isNotEmpty()
          .allMatch(member -> member.endsWith(" [frozen]"));
      assertThat(GroupPs.liveMembers(group.pgid())).isEmpty();
      assertThat(group.alive()).isFalse();
    }
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void aGroupFoundGoneIsNeverSignalledAgainSinceItsPidMayBeReused(Launcher launcher)
      throws Exception {
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", "exit 3");
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      group.leaderExit().get(10, TimeUnit.SECONDS);
      assertThat(group.awaitEmpty(new CompletableFuture<>(), Duration.ofMillis(10))).isTrue();
      assertThat(group.isEmptied()).isTrue();

      List<String> reported = new ArrayList<>();
      assertThat(group.stop(Duration.ofSeconds(5), () -> reported.add("stopping"))).isTrue();
      assertThat(reported).as("the stop is still reported").containsExactly("stopping");
    }
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void aMemberThatIgnoresSigtermGetsSigkillAfterTheGrace(Launcher launcher) throws Exception {
    Path started = dir.resolve("started");
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", "trap '' TERM; touch " + started + "; sleep 60 & wait");
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(started));
      long start = System.nanoTime();
      assertThat(group.stop(Duration.ofMillis(300), () -> {})).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300));
      assertThat(GroupPs.liveMembers(group.pgid())).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void aMemberThatMovedToAGroupOfItsOwnKeepsCommandAliveAndIsFrozenWithIt(Launcher launcher)
      throws Exception {
    // GNU timeout runs its command in a group of its own, in COMMAND's session; COMMAND's shell
    // then exits at once, leaving only that group.
    ProcessBuilder builder =
        new ProcessBuilder(
            "sh", "-c", "timeout 60 sh -c '" + publishPid("$$") + " && exec sleep 60' &");
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      String worker = Long.toString(publishedPidOnceLeaderExited(group));
      assertThat(GroupMembers.groupOf(Long.parseLong(worker)))
          .as("in a group of its own")
          .hasValueSatisfying(g -> assertThat(g).isNotEqualTo(group.pgid()));

      assertThat(group.alive()).as("COMMAND's work still runs").isTrue();
      List<Boolean> frozenWhenReported = new ArrayList<>();
      assertThat(group.stop(Duration.ofSeconds(5), () -> frozenWhenReported.add(frozen(worker))))
          .isTrue();
      assertThat(frozenWhenReported).containsExactly(true);
      assertThat(GroupMembers.alive(Long.parseLong(worker))).isFalse();
      assertThat(group.alive()).isFalse();
    }
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void aMemberWhoseNameIsCutInsideACharacterIsAliveUntilStopped(Launcher launcher)
      throws Exception {
    // The kernel keeps a process name's first 15 bytes: "exports_client" and half of the 'è' of
    // a copy of sleep named exports_clientèles, which is not UTF-8. (The name is made by the
    // shell, so that the test needs no UTF-8 file names in this JVM.)
    ProcessBuilder builder =
        new ProcessBuilder(
                "sh",
                "-c",
                "job=\"$(printf 'exports_client\\303\\250les')\"; cp \"$(command -v sleep)\" \"$job\""
                    + " && { \"./$job\" 60 & "
                    + publishPid("$!")
                    + "; }")
            .directory(dir.toFile());
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      long job = publishedPidOnceLeaderExited(group);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> Files.readAllBytes(Path.of("/proc", Long.toString(job), "comm")).length == 16);

      assertThat(GroupMembers.alive(job)).as("the job is alive").isTrue();
      assertThat(group.alive()).as("COMMAND's work still runs").isTrue();
      assertThat(group.stop(Duration.ofSeconds(5), () -> {})).isTrue();
      assertThat(GroupMembers.alive(job)).isFalse();
    }
  }

  /** Shell words that write the pid {@code expression} names to the file {@link #pid} at once. */
  private String publishPid(String expression) {
    Path written = dir.resolve("pid.tmp");
    return "echo " + expression + " > " + written + " && mv " + written + " " + pid();
  }

  /** The pid {@link #publishPid} wrote, once COMMAND's own process (its leader) has exited. */
  private long publishedPidOnceLeaderExited(ProcessGroup group) throws Exception {
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pid()));
    group.leaderExit().join();
    return Long.parseLong(Files.readString(pid()).strip());
  }

  private Path pid() {
    return dir.resolve("pid");
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void exitCodeAndArgumentsPassThroughTheLauncher(Launcher launcher) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", "exit $#", "-", "-x", "--", "y");
    try (ProcessGroup group = ProcessGroup.start(builder, launcher)) {
      group.leaderExit().join();
      assertThat(group.exitValue()).isEqualTo(3);
    }
  }

  /**
   * Whether a {@code "PID PGID STAT ARGS"} member is stopped, or has SIGSTOP pending: a process
   * inside a system call that does not take signals at once (state D, such as a fork in flight)
   * stops when it returns, before it runs any more of its own code.
   */
  private static boolean frozen(String member) {
    String pid = member.split(" ")[0];
    // A member that has just taken SIGSTOP off its pending set shows state R with nothing pending
    // for the few microseconds before it stops, so look again for a short while: nothing else
    // sends SIGSTOP, so a member that reaches T now had the stop in flight at report time.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
    do {
      Boolean frozen = frozenNow(pid);
      if (frozen == null || frozen) {
        return true;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    } while (System.nanoTime() < deadline);
    return false;
  }

  /** Stopped or SIGSTOP pending, from one read of its status; null when it is gone. */
  private static @Nullable Boolean frozenNow(String pid) {
    List<String> status;
    try {
      status = Files.readAllLines(Path.of("/proc", pid, "status"));
    } catch (java.io.IOException e) {
      return null; // gone already: it can run no more of its own code
    }
    for (String line : status) {
      if (line.startsWith("State:") && line.substring(6).strip().startsWith("T")) {
        return true;
      }
      if (line.startsWith("ShdPnd:") || line.startsWith("SigPnd:")) {
        long pending = Long.parseUnsignedLong(line.substring(7).strip(), 16);
        if ((pending & (1L << (SIGSTOP - 1))) != 0) {
          return true;
        }
      }
    }
    return false;
  }
}
