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

  @Test
  void workersNeverOverlapAndTheVerdictPasses(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter();
    int exit =
        new DemoRun(
                null,
                3,
                5,
                Duration.ofSeconds(2),
                Duration.ofMillis(5),
                false,
                dir,
                new PrintWriter(out, true),
                false)
            .call();
    assertThat(exit).as(out.toString()).isZero();
    assertThat(out.toString())
        .contains("critical sections run      15")
        .contains("writes accepted            15")
        .contains("overlaps                   0")
        .contains("lost updates               0")
        .contains("fencing-token order        increasing")
        .contains("PASSED");
  }

  @Test
  void chaosPausedHoldersLateWriteIsRefused(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter();
    int exit =
        new DemoRun(
                null,
                3,
                6,
                Duration.ofSeconds(1),
                Duration.ofMillis(300),
                true,
                dir,
                new PrintWriter(out, true),
                false)
            .call();
    String text = out.toString();
    assertThat(exit).as(text).isZero();
    assertThat(text)
        .contains(">> SIGSTOP worker")
        .contains(">> SIGCONT worker")
        .contains("overlaps                   0")
        .contains("lost updates               0")
        .containsPattern("late writes refused +[1-9]");
  }

  @Test
  void badWorkerCountIsAUsageError() {
    assertThat(Main.execute("demo", "--workers", "0")).isEqualTo(64);
  }
}
