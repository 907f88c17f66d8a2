package dev.locksmith.chaos;

import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Path;

/**
 * Worker JVMs of the scenarios: the test kit's {@link ChildJvm} with this JVM's class path, a small
 * heap, the log in a file and standard input a pipe the test writes commands to ({@code go}, {@code
 * stop}).
 */
final class Workers {
  private static final String[] OPTIONS = {
    "-Xmx96m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"
  };

  private Workers() {}

  /** Starts {@code mainClass} with the arguments. */
  static ChildJvm start(Class<?> mainClass, Path log, String... args) {
    return ChildJvm.builder(mainClass)
        .jvmOptions(OPTIONS)
        .args(args)
        .output(log)
        .pipeStdin()
        .start();
  }
}
