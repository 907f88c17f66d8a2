package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.FullContract;
import dev.locksmith.testkit.LockProviderContract;
import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.StoreLifecycle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kit's conformance suite on a real directory, and its multi-process harness. */
class FileConformanceTest extends LockProviderContract implements FullContract {
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

  /**
   * A directory has no server to restart, so {@link StoreLifecycle#restart()} and {@link
   * StoreLifecycle#restartWithPersistenceAdded()} change nothing: the lock files and counters stay
   * where they are, as they would across a reboot of every host (clients made afterwards simply
   * open the same directory). {@link StoreLifecycle#restartLosingState()} is what an operator
   * cleaning up does: it deletes every fencing counter file ({@code *.fence}) in the directory.
   */
  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() {
        // Nothing runs between the clients and the directory.
      }

      @Override
      public void restartLosingState() throws Exception {
        List<Path> counters;
        try (Stream<Path> files = Files.list(directory)) {
          counters = files.filter(f -> f.getFileName().toString().endsWith(".fence")).toList();
        }
        assertThat(counters).as("counter files to delete").isNotEmpty();
        for (Path counter : counters) {
          Files.delete(counter);
        }
      }

      @Override
      public void restartWithPersistenceAdded() {
        // The directory always persists; nothing to add.
      }
    };
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
