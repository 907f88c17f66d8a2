package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.LockProviderContract;
import dev.locksmith.testkit.MultiProcessHarness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kit's conformance suite on a real directory, and its multi-process harness. */
class FileConformanceTest extends LockProviderContract {
  private static final Duration SKEW = Duration.ofMillis(200);

  @TempDir Path directory;

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(TestProviders.url(directory, "skew=200ms&poll-max=20ms"));
  }

  @Override
  protected Duration expiryGrace() {
    return SKEW;
  }

  @Test
  void fourJvmsThroughTheHarnessKeepAMutexHistory(@TempDir Path work) throws Exception {
    MultiProcessHarness.Result result =
        MultiProcessHarness.run(
            TestProviders.url(directory, "skew=200ms&poll-max=20ms"), 4, 20, work);
    assertThat(result.violations()).isEmpty();
    assertThat(result.history().processes()).isEqualTo(4);
  }
}
