package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code locksmith prune} over a real lock directory. */
class PruneCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int execute(String... args) {
    CommandLine line = Main.commandLine();
    line.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    return line.execute(args);
  }

  @Test
  void keepsTheCountersOfLocksUsedRecentlyAndReportsWhatItDid(@TempDir Path dir) {
    String url = "file://" + dir.toAbsolutePath() + "?skew=200ms";
    try (LockProvider provider = LockProviders.create(url)) {
      for (String id : new String[] {"a", "b", "c"}) {
        LeaseGrant grant =
            provider.tryAcquire(LockRequest.of(id, Duration.ofSeconds(5))).orElseThrow();
        provider.release(grant);
      }
    }
    assertThat(execute("prune", "--url", url, "--older-than", "1h")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith("pruned " + dir.toAbsolutePath())
        .contains("0 counter file(s) deleted, 3 kept");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void badInputIsOneLineAndExit64(@TempDir Path dir) {
    String[][] cases = {
      {"prune", "--url", dir.toString(), "--older-than", "30s"},
      {"prune", "--url", "tcp://127.0.0.1:7420"},
      {"prune", "--url", dir.resolve("missing").toString()},
      {"prune", "--url", dir.toString(), "--older-than", "200000d"},
    };
    for (String[] args : cases) {
      err.reset();
      assertThat(execute(args)).as(String.join(" ", args)).isEqualTo(64);
      assertThat(err.toString(StandardCharsets.UTF_8).lines())
          .as("stderr of %s", String.join(" ", args))
          .singleElement()
          .asString()
          .startsWith("locksmith: ");
    }
  }
}
