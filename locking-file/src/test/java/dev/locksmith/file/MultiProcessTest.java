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
  @TempDir Path dir;
  @TempDir Path work;

  @Test
  void fourJvmsNeverHoldTheLockAtOnceAndSeeIncreasingTokens() throws Exception {
    int jvms = 4;
    int cycles = 25;
    String url = TestProviders.url(dir, "poll-max=20ms");
    Path log = work.resolve("tokens.log");
    List<ChildJvm> processes = new ArrayList<>();
    for (int i = 0; i < jvms; i++) {
      processes.add(
          worker(
              work.resolve("child-" + i + ".out"),
              "contend",
              url,
              "shared",
              Integer.toString(cycles),
              log.toString()));
    }
    for (int i = 0; i < jvms; i++) {
      Process process = processes.get(i).process();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("child %d finished", i).isTrue();
      assertThat(process.exitValue())
          .as("child %d exit; output: %s", i, Files.readString(work.resolve("child-" + i + ".out")))
          .isZero();
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).hasSize(jvms * cycles);
    long previous = 0;
    for (String line : lines) {
      long token = Long.parseLong(line.split(" ")[0]);
      assertThat(token).as("tokens in critical-section order").isGreaterThan(previous);
      previous = token;
    }
    assertThat(lines.stream().map(l -> l.split(" ")[1]).distinct()).hasSize(jvms);
  }

  @Test
  void pruningWhileFourJvmsContendNeverRepeatsATokenOrLetsOneGoBack() throws Exception {
    int jvms = 4;
    int cycles = 25;
    String url = TestProviders.url(dir, "poll-max=20ms");
    Path log = work.resolve("tokens.log");
    List<ChildJvm> processes = new ArrayList<>();
    for (int i = 0; i < jvms; i++) {
      processes.add(
          worker(
              work.resolve("child-" + i + ".out"),
              "contend",
              url,
              "shared",
              Integer.toString(cycles),
              log.toString()));
    }
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
    for (int i = 0; i < jvms; i++) {
      Process process = processes.get(i).process();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child %d finished", i).isTrue();
      assertThat(process.exitValue())
          .as("child %d exit; output: %s", i, Files.readString(work.resolve("child-" + i + ".out")))
          .isZero();
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).hasSize(jvms * cycles);
    long previous = 0;
    for (String line : lines) {
      long token = Long.parseLong(line.split(" ")[0]);
      assertThat(token).as("tokens in critical-section order").isGreaterThan(previous);
      previous = token;
    }
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
