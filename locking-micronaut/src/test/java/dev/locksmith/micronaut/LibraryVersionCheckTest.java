package dev.locksmith.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The comparison behind the start-up warning about older libraries. */
class LibraryVersionCheckTest {
  private static final Map<String, String> BUILT =
      Map.of("spring-expression", "7.0.8", "netty", "4.2.15.Final", "micrometer", "1.16.6");

  @Test
  void versionsCompareByTheirNumbersNotAsText() {
    assertThat(LibraryVersionCheck.compare("4.2.9.Final", "4.2.15.Final")).isNegative();
    assertThat(LibraryVersionCheck.compare("6.2.11", "7.0.8")).isNegative();
    assertThat(LibraryVersionCheck.compare("1.15.4", "1.16.6")).isNegative();
    assertThat(LibraryVersionCheck.compare("1.16.6", "1.16.6")).isZero();
    assertThat(LibraryVersionCheck.compare("4.2.15.Final", "4.2.15")).isZero();
    assertThat(LibraryVersionCheck.compare("7.0", "7.0.0")).isZero();
    assertThat(LibraryVersionCheck.compare("7.0.10", "7.0.8")).isPositive();
    assertThat(LibraryVersionCheck.compare("7.1.0-M1", "7.0.8")).isPositive();
  }

  @Test
  void theMicronautPlatformsVersionsAreDowngradesAndNamedWithTheFix() {
    Map<String, String> platform =
        Map.of(
            "org.springframework.expression.ExpressionParser", "6.2.11",
            "io.netty.util.Version", "4.2.9.Final",
            "io.micrometer.core.instrument.MeterRegistry", "1.15.4");

    var downgrades = LibraryVersionCheck.downgrades(BUILT, platform::get);

    assertThat(downgrades)
        .extracting(d -> d.library().name())
        .containsExactly("spring-expression", "netty", "micrometer");
    assertThat(LibraryVersionCheck.warning(downgrades))
        .contains("spring-expression 6.2.11 (built with 7.0.8)")
        .contains("netty 4.2.9.Final (built with 4.2.15.Final)")
        .contains("micrometer 1.15.4 (built with 1.16.6)")
        .contains(
            "org.springframework:spring-framework-bom:7.0.8, io.netty:netty-bom:4.2.15.Final,"
                + " io.micrometer:micrometer-bom:1.16.6")
        .contains("before the Micronaut BOM")
        .contains(
            "with micronaut-parent as the parent, also set the properties"
                + " netty.version=4.2.15.Final, micrometer.version=1.16.6");
  }

  @Test
  void aSpringDowngradeAloneNeedsNoParentProperty() {
    var downgrades =
        LibraryVersionCheck.downgrades(
            BUILT, marker -> marker.startsWith("org.springframework") ? "6.2.11" : null);

    assertThat(LibraryVersionCheck.warning(downgrades))
        .contains("spring-expression 6.2.11 (built with 7.0.8)")
        .doesNotContain("micronaut-parent as the parent");
  }

  @Test
  void equalNewerAbsentOrUnreadableLibrariesAreNotReported() {
    Map<String, String> runtime =
        Map.of(
            "org.springframework.expression.ExpressionParser", "7.0.8",
            "io.netty.util.Version", "4.2.16.Final");

    var downgrades = LibraryVersionCheck.downgrades(BUILT, runtime::get);

    assertThat(downgrades).isEmpty();
    assertThat(LibraryVersionCheck.warning(downgrades)).isNull();
  }

  @Test
  void anUnfilteredBuildVersionIsNotCompared() {
    var downgrades =
        LibraryVersionCheck.downgrades(
            Map.of("micrometer", "${micrometer.version}"), marker -> "1.0.0");

    assertThat(downgrades).isEmpty();
  }

  @Test
  void theRuntimeVersionComesFromTheJarManifest() {
    assertThat(LibraryVersionCheck.runtimeVersion("io.netty.util.Version"))
        .isEqualTo(io.netty.util.Version.class.getPackage().getImplementationVersion())
        .isNotBlank();
    assertThat(LibraryVersionCheck.runtimeVersion("com.example.Absent")).isNull();
  }
}
