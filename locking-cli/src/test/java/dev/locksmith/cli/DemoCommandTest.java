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

  /**
   * Runs the demo in {@code dir}; it must pass, its verdict counting no overlap and no lost update.
   *
   * @return what it printed
   */
  private static String safeDemo(
      Path dir, int workers, int sections, Duration ttl, Duration work, boolean chaos)
      throws Exception {
    StringWriter out = new StringWriter();
    int exit =
        new DemoRun(
                null, workers, sections, ttl, work, chaos, dir, new PrintWriter(out, true), false)
            .call();
    String text = out.toString();
    assertThat(exit).as(text).isZero();
    assertThat(text)
        .contains("overlaps                   0")
        .contains("lost updates               0");
    return text;
  }

  @Test
  void workersNeverOverlapAndTheVerdictPasses(@TempDir Path dir) throws Exception {
    assertThat(safeDemo(dir, 3, 5, Duration.ofSeconds(2), Duration.ofMillis(5), false))
        .contains("critical sections run      15")
        .contains("writes accepted            15")
        .contains("fencing-token order        increasing")
        .contains("PASSED");
  }

  @Test
  void chaosPausedHoldersLateWriteIsRefused(@TempDir Path dir) throws Exception {
    assertThat(safeDemo(dir, 3, 6, Duration.ofSeconds(1), Duration.ofMillis(300), true))
        .contains(">> SIGSTOP worker")
        .contains(">> SIGCONT worker")
        .containsPattern("late writes refused +[1-9]");
  }

  @Test
  void badWorkerCountIsAUsageError() {
    assertThat(Main.execute("demo", "--workers", "0")).isEqualTo(64);
  }
}
