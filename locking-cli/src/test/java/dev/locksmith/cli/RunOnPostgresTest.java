package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.jdbc.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith run --url jdbc:postgresql://...} in JVMs of their own against a real PostgreSQL
 * (the test kit's, or {@code LOCKSMITH_TEST_POSTGRES_URL}'s): while one run's COMMAND holds the
 * lock, a second run on the same key with --fail exits 75 without starting its COMMAND; after the
 * first ends, it runs with a higher fencing token.
 */
class RunOnPostgresTest {
  private static final String URL = TestPostgres.url("table=cli_run_locks");

  @TempDir Path dir;

  private ChildJvm locksmith(String name, String... args) {
    return ChildJvm.builder(Main.class)
        .jvmOptions("-XX:TieredStopAtLevel=1")
        .args(args)
        .output(dir.resolve(name + ".out"))
        .errorOutput(dir.resolve(name + ".err"))
        .start();
  }

  @Test
  void secondRunIsRefusedWhileTheFirstHoldsAndRunsAfterIt() throws Exception {
    Path started = dir.resolve("started");
    Path release = dir.resolve("release");
    Path secondRan = dir.resolve("second-ran");
    try (ChildJvm first =
        locksmith(
            "first",
            "run",
            "--url",
            URL,
            "--key",
            "cli-pg",
            "--",
            "sh",
            "-c",
            "echo $LOCKSMITH_FENCING_TOKEN > "
                + started
                + "; while [ ! -f "
                + release
                + " ]; do sleep 0.05; done")) {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(started));

      try (ChildJvm busy =
          locksmith(
              "busy",
              "run",
              "--url",
              URL,
              "--key",
              "cli-pg",
              "--fail",
              "--",
              "touch",
              secondRan.toString())) {
        assertThat(busy.awaitExit(Duration.ofSeconds(60))).isEqualTo(ExitCodes.BUSY);
      }
      assertThat(secondRan).doesNotExist();
      assertThat(Files.readString(dir.resolve("busy.err")))
          .contains("lock 'cli-pg' is busy")
          .contains("--wait");

      Files.createFile(release);
      assertThat(first.awaitExit(Duration.ofSeconds(60))).isZero();
    }
    try (ChildJvm second =
        locksmith(
            "second",
            "run",
            "--url",
            URL,
            "--key",
            "cli-pg",
            "--fail",
            "--",
            "sh",
            "-c",
            "echo $LOCKSMITH_FENCING_TOKEN > " + secondRan)) {
      assertThat(second.awaitExit(Duration.ofSeconds(60))).isZero();
    }
    long firstToken = Long.parseLong(Files.readString(started).strip());
    long secondToken = Long.parseLong(Files.readString(secondRan).strip());
    assertThat(secondToken).isGreaterThan(firstToken);
  }
}
