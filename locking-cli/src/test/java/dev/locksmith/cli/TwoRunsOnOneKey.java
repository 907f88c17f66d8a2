package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Two {@code locksmith run} JVMs on one key of a provider URL: while the first run's COMMAND holds
 * the lock, a second run with --fail exits 75 without starting its COMMAND; after the first ends, a
 * second run gets the lock with a higher fencing token.
 *
 * @param dir where the runs' output and marker files go
 * @param url the provider URL both runs use
 * @param key the key both runs lock
 */
record TwoRunsOnOneKey(Path dir, String url, String key) {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  /** Asserts the refusal while held, the run after, and the rising fencing token. */
  void assertSecondIsRefusedWhileTheFirstHoldsAndRunsAfterIt()
      throws IOException, InterruptedException {
    Path started = dir.resolve("started");
    Path release = dir.resolve("release");
    Path secondRan = dir.resolve("second-ran");
    try (ChildJvm first =
        locksmith(
            "first",
            "--",
            "sh",
            "-c",
            "echo $LOCKSMITH_FENCING_TOKEN > "
                + started
                + "; while [ ! -f "
                + release
                + " ]; do sleep 0.05; done")) {
      await().atMost(LIMIT).until(() -> Files.exists(started));

      try (ChildJvm busy = locksmith("busy", "--fail", "--", "touch", secondRan.toString())) {
        assertThat(busy.awaitExit(LIMIT)).isEqualTo(ExitCodes.BUSY);
      }
      assertThat(secondRan).doesNotExist();
      assertThat(Files.readString(dir.resolve("busy.err")))
          .contains("lock '" + key + "' is busy")
          .contains("--wait");

      Files.createFile(release);
      assertThat(first.awaitExit(LIMIT)).isZero();
    }
    try (ChildJvm second =
        locksmith(
            "second", "--fail", "--", "sh", "-c", "echo $LOCKSMITH_FENCING_TOKEN > " + secondRan)) {
      assertThat(second.awaitExit(LIMIT)).isZero();
    }
    long firstToken = Long.parseLong(Files.readString(started).strip());
    long secondToken = Long.parseLong(Files.readString(secondRan).strip());
    assertThat(secondToken).isGreaterThan(firstToken);
  }

  private ChildJvm locksmith(String name, String... rest) {
    String[] args =
        Stream.concat(Stream.of("run", "--url", url, "--key", key), Arrays.stream(rest))
            .toArray(String[]::new);
    return ChildJvm.builder(Main.class)
        .jvmOptions("-XX:TieredStopAtLevel=1")
        .args(args)
        .output(dir.resolve(name + ".out"))
        .errorOutput(dir.resolve(name + ".err"))
        .start();
  }
}
