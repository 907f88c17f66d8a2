package dev.locksmith.micronaut.app;

import dev.locksmith.testkit.MultiProcessHarness;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@link ChildApp} in a JVM of its own with this JVM's class path. */
final class ChildJvm {
  private ChildJvm() {}

  /** Starts the application through the test kit's helper; its output goes to {@code log}. */
  static Process start(Path log, String... args) throws IOException {
    return MultiProcessHarness.startJvm(ChildApp.class.getName(), log, args);
  }

  /**
   * Runs the application with {@code first} ahead of this JVM's class path until it exits, and
   * returns its output.
   */
  static String runWithClassPathFirst(Path first, Path log, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx128m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(first + File.pathSeparator + System.getProperty("java.class.path"));
    command.add(ChildApp.class.getName());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(
          "the child JVM did not exit within 2 minutes: " + Files.readString(log));
    }
    return Files.readString(log);
  }

  /** Runs the application with this JVM's class path until it exits, and returns its output. */
  static String run(Path log, String... args) throws IOException, InterruptedException {
    Process process = start(log, args);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(
          "the child JVM did not exit within 2 minutes: " + Files.readString(log));
    }
    return Files.readString(log);
  }
}
