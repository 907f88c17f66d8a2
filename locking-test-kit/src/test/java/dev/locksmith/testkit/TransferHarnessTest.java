package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transfer harness in one JVM: passes on the memory provider, and catches a broken one. */
class TransferHarnessTest {
  @TempDir Path dir;

  @Test
  void transfersOverTheMemoryProviderNeverDeadlockOverlapOrLoseMoney() throws Exception {
    TransferHarness.Result result =
        TransferHarness.builder()
            .processes(4)
            .threads(2)
            .transfers(40)
            .runInThreads(MemoryLockProvider.isolated(), dir);
    System.out.println("mem: " + result.figures());
    assertThat(result.violations()).isEmpty();
    assertThat(result.transfers()).isEqualTo(320);
    assertThat(result.exitCodes()).containsExactly(0, 0, 0, 0);
    assertThat(result.warmUpRetries()).isZero();
    assertThat(result.history().accounts()).hasSize(5);
    assertThat(result.history().accounts().values())
        .allSatisfy(account -> assertThat(account.sections()).isNotEmpty());
  }

  @Test
  void aProviderThatNeverAnswersFailsTheWarmUpAndNoTransferStarts() throws Exception {
    TransferHarness.Result result =
        TransferHarness.builder()
            .processes(2)
            .threads(1)
            .transfers(3)
            .waitTimeout(Duration.ofMillis(500))
            .runInThreads(new UnreachableProvider(), dir);
    assertThat(result.transfers()).isZero();
    assertThat(result.exitCodes()).containsExactly(2, 2);
    assertThat(result.violations())
        .contains("recorded 0 transfers, expected 6")
        .filteredOn(v -> v.startsWith("failure ") && v.contains("no start: "))
        .hasSize(2);
  }

  @Test
  void aProviderThatExcludesNothingIsCaught() throws Exception {
    TransferHarness.Result result =
        TransferHarness.builder()
            .processes(4)
            .threads(2)
            .transfers(50)
            .runInThreads(new NoExclusionProvider(), dir);
    // Sections that ran at once show as overlaps, as updates lost, or as a half-written balance
    // file that a transfer failed to read.
    assertThat(result.violations())
        .anySatisfy(v -> assertThat(v).containsAnyOf(": overlap: ", "lost update on account"));
  }
}
