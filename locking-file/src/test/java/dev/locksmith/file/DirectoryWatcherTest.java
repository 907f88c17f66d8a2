package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DirectoryWatcher}: a watch that cannot start leaves nothing behind. */
class DirectoryWatcherTest {
  @TempDir Path dir;

  @Test
  void aWatchThatCannotStartClosesItsWatchService() {
    long before = watchServiceThreads();
    try (DirectoryWatcher watcher = new DirectoryWatcher(dir.resolve("unmounted"), true)) {
      watcher.generation(); // tries to start the watch, on a directory that is not there

      // Each watch service has a thread of its own until it is closed (an inotify descriptor too).
      // A closed one's thread ends just after the close returns.
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(watchServiceThreads()).isLessThanOrEqualTo(before));
    }
  }

  private static long watchServiceThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith("FileSystemWatch"))
        .count();
  }
}
