package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bean compiled with Micronaut's processor but without Locksmith's annotation mapper on the
 * processor path, as a build that forgot it compiles it: its {@code @DistributedLock} method is
 * executable (here through {@code @Executable}, as {@code @Scheduled} or a route makes it) but has
 * no interceptor, so the context must refuse to start instead of running it unlocked.
 */
class WithoutAnnotationMapperTest {
  private static final String JOB =
      """
      package nomapper;

      import dev.locksmith.annotation.DistributedLock;
      import io.micronaut.context.annotation.Executable;
      import io.micronaut.context.annotation.Requires;
      import jakarta.inject.Singleton;

      @Singleton
      @Requires(env = "no-mapper")
      public class SweepJob {
        @Executable
        @DistributedLock(name = "sweep")
        public void sweep() {}
      }
      """;

  @TempDir Path dir;

  @Test
  void anExecutableLockedMethodWithoutTheMapperStopsTheContext() throws Exception {
    compileWithoutTheMapper(dir, Map.of("nomapper.SweepJob", JOB));
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      assertThatThrownBy(
              () -> {
                try (ApplicationContext context =
                    ApplicationContext.builder()
                        .classLoader(loader)
                        .properties(Map.of("locksmith.url", "mem:no-mapper"))
                        .environments("no-mapper")
                        .start()) {
                  context.isRunning();
                }
              })
          .satisfies(
              failure -> {
                assertThat(ConfigurationFailures.cause(failure).getMessage())
                    .contains("nomapper.SweepJob.sweep()", "would run without a lock", "mapper");
              });
    }
  }

  /**
   * javac in a process of its own, with Micronaut's processor from the test class path minus this
   * module's classes, which hold the mapper (javac run in this JVM would find the mapper through
   * the processors' parent class loader).
   */
  private static void compileWithoutTheMapper(Path out, Map<String, String> sources)
      throws Exception {
    Path thisModule =
        Path.of(
            dev.locksmith.micronaut.processing.DistributedLockAnnotationMapper.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    String classPath = System.getProperty("java.class.path");
    String processorPath =
        Arrays.stream(classPath.split(File.pathSeparator))
            .filter(entry -> !Path.of(entry).equals(thisModule))
            .collect(Collectors.joining(File.pathSeparator));
    Path sourceDir = Files.createDirectories(out.resolveSibling(out.getFileName() + "-src"));
    List<String> arguments =
        new ArrayList<>(
            List.of(
                "-d", out.toString(), "-classpath", classPath, "-processorpath", processorPath));
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = sourceDir.resolve(source.getKey().replace('.', '/') + ".java");
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
      arguments.add(file.toString());
    }
    Path argFile = sourceDir.resolve("javac.args");
    Files.write(argFile, arguments.stream().map(a -> "\"" + a + "\"").toList());
    Path javac = Path.of(System.getProperty("java.home"), "bin", "javac");
    Process process =
        new ProcessBuilder(javac.toString(), "@" + argFile).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("javac finished").isTrue();
    assertThat(process.exitValue()).as("javac: %s", output).isZero();
  }
}
