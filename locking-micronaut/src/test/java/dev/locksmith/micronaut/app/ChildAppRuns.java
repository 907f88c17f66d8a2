package dev.locksmith.micronaut.app;

import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.ChildJvmBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/** Starts {@link ChildApp} in a JVM of its own that exits once its context has started. */
final class ChildAppRuns {
  private ChildAppRuns() {}

  /**
   * A child JVM with {@link ChildApp} as its main class, its arguments (environments, then {@code
   * key=value} properties) followed by {@code child.exit-after-start=true}.
   */
  static ChildJvmBuilder exitingAfterStart(String environments, String... properties) {
    return ChildJvm.builder(ChildApp.class)
        .args(
            Stream.concat(
                    Stream.concat(Stream.of(environments), Stream.of(properties)),
                    Stream.of("child.exit-after-start=true"))
                .toArray(String[]::new));
  }

  /** Runs {@code jvm} until it exits, its output going to {@code dir/app.log}, and returns it. */
  static String output(ChildJvmBuilder jvm, Path dir) throws Exception {
    Path log = dir.resolve("app.log");
    try (ChildJvm app = jvm.jvmOptions("-Xmx128m", "-XX:TieredStopAtLevel=1").output(log).start()) {
      app.awaitExit(Duration.ofMinutes(2));
    } catch (IllegalStateException e) {
      throw new AssertionError(
          "the child JVM did not exit within 2 minutes: " + Files.readString(log), e);
    }
    return Files.readString(log);
  }
}
