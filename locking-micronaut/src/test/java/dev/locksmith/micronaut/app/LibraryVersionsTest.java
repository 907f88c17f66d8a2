package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.Version;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.expression.ExpressionParser;

/**
 * The start-up check of library versions, end to end in an application JVM: silent when the class
 * path has the versions Locksmith is built with (this module pins them ahead of the Micronaut
 * platform, as its README tells users to), one warning naming each older library and the fix when
 * Locksmith is built with newer ones.
 */
class LibraryVersionsTest {
  private static final String RESOURCE = "dev/locksmith/micronaut/built-with.properties";

  @Test
  void theBuiltWithVersionsAreThoseOnThisModulesClassPath() throws Exception {
    Properties built = new Properties();
    try (var in = getClass().getClassLoader().getResourceAsStream(RESOURCE)) {
      assertThat(in).as(RESOURCE).isNotNull();
      built.load(in);
    }
    assertThat(built)
        .containsEntry(
            "spring-expression", ExpressionParser.class.getPackage().getImplementationVersion())
        .containsEntry("netty", Version.class.getPackage().getImplementationVersion())
        .containsEntry("micrometer", MeterRegistry.class.getPackage().getImplementationVersion());
  }

  @Test
  void noWarningWhenTheClassPathHasTheBuiltWithVersions(@TempDir Path dir) throws Exception {
    String output =
        ChildAppRuns.output(ChildAppRuns.exitingAfterStart("none", "locksmith.url=mem:v"), dir);
    assertThat(output).contains("context started").doesNotContain("built with newer versions");
  }

  @Test
  void oneWarningNamesEveryOlderLibraryAndTheFix(@TempDir Path dir) throws Exception {
    Path first = dir.resolve("classes");
    Path resource = first.resolve(RESOURCE);
    Files.createDirectories(resource.getParent());
    String netty = Version.class.getPackage().getImplementationVersion();
    Files.writeString(
        resource,
        "spring-expression=99.0.1\nnetty=" + netty + "\nmicrometer=1.99.0\n",
        StandardCharsets.UTF_8);

    String output =
        ChildAppRuns.output(
            ChildAppRuns.exitingAfterStart("none", "locksmith.url=mem:v")
                .classPath(first + File.pathSeparator + System.getProperty("java.class.path")),
            dir);

    assertThat(output).contains("context started");
    String spring = ExpressionParser.class.getPackage().getImplementationVersion();
    String micrometer = MeterRegistry.class.getPackage().getImplementationVersion();
    assertThat(output.lines().filter(line -> line.contains("built with newer versions")))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("WARN")
                    .contains("spring-expression " + spring + " (built with 99.0.1)")
                    .contains("micrometer " + micrometer + " (built with 1.99.0)")
                    .doesNotContain("netty " + netty)
                    .contains("org.springframework:spring-framework-bom:99.0.1")
                    .contains("io.micrometer:micrometer-bom:1.99.0")
                    .contains("before the Micronaut BOM")
                    .contains("also set the properties micrometer.version=1.99.0"));
  }
}
