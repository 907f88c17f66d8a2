package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs make random transfers among accounts, each taking both accounts' locks in one call
 * over one lock directory: no deadlock, no overlap per account, rising tokens, money conserved.
 */
class FileTransfersTest {
  @TempDir Path dir;
  @TempDir Path work;

  @Test
  void transfersOverTwoKeysInFourJvmsNeverDeadlockOrOverlap() throws Exception {
    TransferHarness.Result result =
        TransferHarness.run(TestProviders.url(dir, "poll-max=20ms"), work);
    System.out.println("file: " + result.figures());
    assertThat(result.violations()).isEmpty();
    assertThat(result.transfers()).isEqualTo(120);
  }
}
