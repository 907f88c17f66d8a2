package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real child JVMs contending for and crashing while holding a lock in one directory. */
class MultiProcessTest {
  private static final int JVMS = 4;
  private static final int CYCLES = 25;

  @TempDir Path dir;
  @TempDir Path work;

  /** Starts {@link #JVMS} children that each take the shared lock {@link #CYCLES} times. */
  private List<ChildJvm> startContenders(Path log) {
    String url = TestProviders.url(dir, "poll-max=20ms");
    List<ChildJvm> processes = new ArrayList<>();
    for (int i = 0; i < JVMS; i++) {
      processes.add(
          worker(
              work.resolve("child-" + i + ".out"),
              "contend",
              url,
              "shared",
              Integer.toString(CYCLES),
              log.toString()));
    }
    return processes;
  }

  /**
   * Waits up to {@code seconds} for each child to exit 0, then checks that the tokens in {@code
   * log}, one line per critical section, increase in critical-section order; returns the lines.
   */
  private List<String> tokensInOrder(List<ChildJvm> processes, int seconds, Path log)
      throws Exception {
    for (int i = 0; i < processes.size(); i++) {
      Process process = processes.get(i).process();
      assertThat(process.waitFor(seconds, TimeUnit.SECONDS)).as("child %d finished", i).isTrue();
      assertThat(process.exitValue())
          .as("child %d exit; output: %s", i, Files.readString(work.resolve("child-" + i + ".out")))
          .isZero();
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).hasSize(JVMS * CYCLES);
    long previous = 0;
    for (String line : lines) {
      long token = Long.parseLong(line.split(" ")[0]);
      assertThat(token).as("tokens in critical-section order").isGreaterThan(previous);
      previous = token;
    }
    return lines;
  }

  @Test
  void fourJvmsNeverHoldTheLockAtOnceAndSeeIncreasingTokens() throws Exception {
    Path log = work.resolve("tokens.log");
    List<ChildJvm> processes = startContenders(log);
    List<String> lines = tokensInOrder(processes, 120, log);
    assertThat(lines.stream().map(l -> l.split(" ")[1]).distinct()).hasSize(JVMS);
  }

  @Test
  void pruningWhileFourJvmsContendNeverRepeatsATokenOrLetsOneGoBack() throws Exception {
    Path log = work.resolve("tokens.log");
    List<ChildJvm> processes = startContenders(log);
    // Prune as often as possible, as if every counter were two hours idle: each time the lock is
    // between holders its counter goes, and the next holder takes its token from the clock.
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    int deleted = 0;
    int passes = 0;
    for (ChildJvm child : processes) {
      Process process = child.process();
      while (!process.waitFor(1, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
        deleted +=
            FileLockMaintenance.prune(dir, Duration.ofHours(1), later, false, TestHooks.NONE)
                .countersDeleted();
        passes++;
      }
    }
    tokensInOrder(processes, 30, log);
    assertThat(deleted).as("counters deleted in %d prune passes", passes).isPositive();
  }

  @Test
  void aHolderKilledWithKill9IsTakenOverAfterTtlPlusSkew() throws Exception {
    Duration ttl = Duration.ofSeconds(1);
    String url = TestProviders.url(dir, "skew=500ms&poll-max=50ms");
    Path report = work.resolve("holder.token");
    try (ChildJvm child =
        worker(work.resolve("holder.out"), "hold", url, "job", ttl.toString(), report.toString())) {
      Process holder = child.process();
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(report) || !holder.isAlive());
      assertThat(holder.isAlive())
          .as("holder output: %s", Files.readString(work.resolve("holder.out")))
          .isTrue();
      long heldToken = Long.parseLong(Files.readString(report));
      assertThat(ProcessHandle.of(holder.pid()).orElseThrow().destroyForcibly()).isTrue();
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long killed = System.nanoTime();

      try (FileLockProvider next = TestProviders.open(dir, "skew=500ms&poll-max=50ms")) {
        assertThat(LockFileNames.of(dir, "job").lock()).exists();
        LeaseGrant lease =
            next.acquire(request("job", Duration.ofSeconds(30)), Duration.ofSeconds(20))
                .orElseThrow();
        assertThat(lease.fencingToken()).isGreaterThan(heldToken);
        // The child wrote its report after acquiring, so ttl + skew ran out less than
        // (kill time - acquire time) after the kill; it cannot have run out long before.
        assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(Duration.ofSeconds(10));
        assertThat(next.status("job").currentHolder())
            .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(lease.fencingToken()));
      }
    }
  }

  /** Starts {@link LockWorkerMain} in a child JVM with this test's class path. */
  private static ChildJvm worker(Path output, String... args) {
    return ChildJvm.builder(LockWorkerMain.class)
        .jvmOptions("-Xshare:auto", "-XX:TieredStopAtLevel=1")
        .args(args)
        .output(output)
        .start();
  }
}
