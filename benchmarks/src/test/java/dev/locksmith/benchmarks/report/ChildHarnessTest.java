package dev.locksmith.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A harness in a real child JVM: its kept lines, a failed exit, a run past its time bound. */
class ChildHarnessTest {
  private static ChildHarness harness(String mode, long timeoutSeconds) {
    return new ChildHarness(
        "stand-in " + mode, HarnessMain.class.getName(), List.of(mode), "kept", timeoutSeconds);
  }

  @Test
  void theLinesThatMatchFromStandardOutputAndErrorAreKeptInOrder() throws Exception {
    assertThat(harness("ok", 60).run()).containsExactly("kept: one", "kept: two");
  }

  @Test
  void aFailedExitIsOneLineWithTheExitCodeAndTheLastLine() throws Exception {
    assertThat(harness("fail", 60).run()).containsExactly("exited 3; last line: boom");
  }

  @Test
  void aHarnessPastItsTimeBoundIsKilledAndSaysSo() throws Exception {
    assertThat(harness("hang", 1).run()).containsExactly("killed after 1 s without finishing");
  }

  @Test
  void anAbsentClassIsNotPresent() {
    assertThat(harness("ok", 60).present()).isTrue();
    assertThat(
            new ChildHarness("absent", "dev.locksmith.benchmarks.NoSuchMain", List.of(), "x", 1)
                .present())
        .isFalse();
  }
}
