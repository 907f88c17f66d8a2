package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.tcp.server.LockServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The guarantee of {@code locksmith run}: once the lease is lost, nothing COMMAND started keeps
 * running. COMMAND is a shell that forks a short step every 20 ms; the lock server goes away (the
 * TCP provider reports the lease lost as soon as its connection drops) while steps are running.
 */
class RunLeaseLossTest {
  private static final int ROUNDS = 50;
  private static final Pattern STEP = Pattern.compile("^start (\\d+)$");

  @TempDir Path dir;
  private final ExecutorService runs = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopRuns() {
    runs.shutdownNow();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void fiftyLossesLeaveNoProcessOfTheGroupAndNoStepStartedAfterTheReport() throws Exception {
    assertThat(Launcher.detect().isolates()).as("setsid or perl on this host").isTrue();
    List<Long> closeToGone = new ArrayList<>();
    List<Long> reportToGone = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      Path log = dir.resolve("steps-" + round);
      Path pidFile = dir.resolve("pid-" + round);
      String script =
          "echo $$ > "
              + pidFile
              + "; while :; do sh -c 'echo start $(date +%s%N) >> "
              + log
              + "; sleep 0.02'; done";
      StampedLines err = new StampedLines();
      LockServer server = LockServer.builder().port(0).build();
      int port = server.start();
      CompletableFuture<Integer> exit;
      long closed;
      try {
        exit = startRun(err, port, "loop", "--grace", "5s", "--", "sh", "-c", script);
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> !stepStarts(log).isEmpty());
      } finally {
        closed = System.nanoTime();
        server.close();
      }
      assertThat(exit.get(30, TimeUnit.SECONDS)).as("round %d", round).isEqualTo(70);
      long returned = System.nanoTime();
      long pgid = Long.parseLong(Files.readString(pidFile).strip());

      assertThat(GroupPs.liveMembers(pgid)).as("round %d: group %d", round, pgid).isEmpty();
      assertThat(err.texts()).as("round %d: stderr", round).hasSize(1);
      StampedLines.Line report = err.lines().get(0);
      assertThat(report.text()).startsWith("locksmith: lease on 'loop' lost");
      List<Long> starts = stepStarts(log);
      assertThat(Collections.max(starts))
          .as("round %d: the last step's start, against the loss report", round)
          .isLessThan(report.epochNanos());
      closeToGone.add(returned - closed);
      reportToGone.add(returned - report.nanoTime());
    }
    System.out.printf(
        "run lease loss, %d rounds: server closed -> run returned (group gone) p50 %.1f ms, p99"
            + " %.1f ms; loss reported (group frozen) -> run returned p50 %.1f ms, p99 %.1f ms%n",
        ROUNDS,
        percentile(closeToGone, 50),
        percentile(closeToGone, 99),
        percentile(reportToGone, 50),
        percentile(reportToGone, 99));
  }

  /**
   * A loss that comes after COMMAND's last process exited but before {@code run} looked at the
   * group again: the group is gone, so nothing is signalled and the report says COMMAND ended. The
   * run still counts as lost, since that process may have outlived the lease. Each round closes the
   * server as soon as the background process is seen gone, which is usually before {@code run}'s
   * next look (100 ms apart by then); a round whose look came first ends as a run that held its
   * lease throughout, and rounds go on (at most 20) until two came the other way.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aLossAsCommandsGroupEndsStopsNothingAndSaysCommandEnded() throws Exception {
    int lossRounds = 0;
    for (int round = 0; round < 20 && lossRounds < 2; round++) {
      Path pidFile = dir.resolve("background-" + round);
      StampedLines err = new StampedLines();
      LockServer server = LockServer.builder().port(0).build();
      int port = server.start();
      CompletableFuture<Integer> exit;
      try {
        String script =
            "sleep 0.5 & echo $! > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile;
        exit = startRun(err, port, "ending", "--", "sh", "-c", script);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pidFile));
        long background = Long.parseLong(Files.readString(pidFile).strip());
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> !GroupMembers.alive(background));
      } finally {
        server.close();
      }
      int code = exit.get(30, TimeUnit.SECONDS);
      if (code == 0) {
        assertThat(err.texts()).as("round %d: a run that held its lease", round).isEmpty();
        continue;
      }
      lossRounds++;
      assertThat(code).as("round %d", round).isEqualTo(70);
      assertThat(err.texts())
          .as("round %d: stderr", round)
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .startsWith("locksmith: lease on 'ending' lost (")
          .contains(
              "as COMMAND's group ended; COMMAND exited with 0, and its last process may have"
                  + " outlived the lease")
          .doesNotContain("stopping COMMAND");
    }
    assertThat(lossRounds).as("rounds in which the loss came before run's next look").isPositive();
  }

  /**
   * Starts {@code locksmith run --url tcp://... --key KEY REST...}; its stderr goes to {@code err}.
   */
  private CompletableFuture<Integer> startRun(
      StampedLines err, int port, String key, String... rest) {
    CommandLine line = Main.commandLine();
    line.setErr(new PrintWriter(err, true));
    List<String> args =
        new ArrayList<>(List.of("run", "--url", "tcp://127.0.0.1:" + port, "--key", key));
    args.addAll(List.of(rest));
    return CompletableFuture.supplyAsync(() -> line.execute(args.toArray(String[]::new)), runs);
  }

  private static List<Long> stepStarts(Path log) throws IOException {
    if (!Files.exists(log)) {
      return List.of();
    }
    List<Long> starts = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      Matcher matcher = STEP.matcher(line.strip());
      if (matcher.matches()) {
        starts.add(Long.parseLong(matcher.group(1)));
      }
    }
    return starts;
  }

  private static double percentile(List<Long> nanos, int percent) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
