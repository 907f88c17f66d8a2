package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.cli.demo.DemoRun;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo end to end: real worker JVMs, woven by AspectJ, on an in-process lock server. */
class DemoCommandTest {

  /** What a demo run printed and how it ended. */
  private record Outcome(int exit, String text) {}

  private static Outcome demo(
      Path dir, int workers, int sections, Duration ttl, Duration work, boolean chaos)
      throws Exception {
    StringWriter out = new StringWriter();
    int exit =
        new DemoRun(
                null, workers, sections, ttl, work, chaos, dir, new PrintWriter(out, true), false)
            .call();
    return new Outcome(exit, out.toString());
  }

  /** The run passed, and its verdict counts no overlap and no lost update. */
  private static void assertSafe(Outcome run) {
    assertThat(run.exit()).as(run.text()).isZero();
    assertThat(run.text())
        .contains("overlaps                   0")
        .contains("lost updates               0");
  }

  @Test
  void workersNeverOverlapAndTheVerdictPasses(@TempDir Path dir) throws Exception {
    Outcome run = demo(dir, 3, 5, Duration.ofSeconds(2), Duration.ofMillis(5), false);
    assertSafe(run);
    assertThat(run.text())
        .contains("critical sections run      15")
        .contains("writes accepted            15")
        .contains("fencing-token order        increasing")
        .contains("PASSED");
  }

  @Test
  void chaosPausedHoldersLateWriteIsRefused(@TempDir Path dir) throws Exception {
    Outcome run = demo(dir, 3, 6, Duration.ofSeconds(1), Duration.ofMillis(300), true);
    assertSafe(run);
    assertThat(run.text())
        .contains(">> SIGSTOP worker")
        .contains(">> SIGCONT worker")
        .containsPattern("late writes refused +[1-9]");
  }

  @Test
  void badWorkerCountIsAUsageError() {
    assertThat(Main.execute("demo", "--workers", "0")).isEqualTo(64);
  }
}
