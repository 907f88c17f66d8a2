package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.reactivejobs.PublishingJobs;
import dev.locksmith.testkit.ConsoleLog;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the aspect's engine comes from, and how configuration mistakes surface. */
class ConfigurationTest {
  @TempDir Path dir;

  private @Nullable Locksmith engine;

  @AfterEach
  void tearDown() {
    System.clearProperty("locksmith.url");
    AspectLocksmith.reset();
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void theFirstLockedCallCreatesTheEngineFromSettings() {
    System.setProperty("locksmith.url", "file://" + dir.toAbsolutePath());

    assertThat(new Jobs().plain().lockId()).isEqualTo("jobs.plain");

    assertThat(AspectLocksmith.engine().providers()).containsOnlyKeys("");
    assertThat(dir).isNotEmptyDirectory();
  }

  @Test
  void useAfterTheEngineCameFromSettingsIsRefused() {
    System.setProperty("locksmith.url", "file://" + dir.toAbsolutePath());
    new Jobs().plain();

    try (Locksmith late = Locksmith.builder().build()) {
      assertThatThrownBy(() -> AspectLocksmith.use(late))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("before the first locked call");
    }
  }

  @Test
  void withoutAProviderTheFirstCallFailsWithCoresMessage() {
    assertThatThrownBy(() -> new Jobs().plain())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Jobs.plain")
        .hasMessageContaining("no default provider is configured; set locksmith.url");
  }

  /**
   * An engine made from settings that name no provider is not kept: a locked call (a scheduler
   * thread, say) or {@code validate} that ran before {@code main} set the engine must not lock the
   * application out of {@code use(...)} or of a URL set afterwards.
   */
  @Test
  void callsBeforeAnyProviderIsConfiguredDoNotKeepAnEmptyEngine() {
    Jobs jobs = new Jobs();
    try (ConsoleLog log = new ConsoleLog()) {
      assertThatThrownBy(jobs::plain).isInstanceOf(LockConfigurationException.class);
      assertThatThrownBy(jobs::plain).isInstanceOf(LockConfigurationException.class);
      assertThatThrownBy(() -> AspectLocksmith.validate(Jobs.class))
          .isInstanceOf(LockConfigurationException.class);
      assertThat(log.lines().stream().filter(line -> line.contains("Weaving verified")))
          .as("checked once while nothing is configured, not at every call")
          .hasSize(1);
    }

    System.setProperty("locksmith.url", "file://" + dir.toAbsolutePath());
    assertThat(jobs.plain().lockId()).as("the URL set afterwards").isEqualTo("jobs.plain");

    AspectLocksmith.reset();
    System.clearProperty("locksmith.url");
    assertThatThrownBy(jobs::plain).isInstanceOf(LockConfigurationException.class);
    use(Locksmith.builder().settings(fileSettings()).build());
    assertThat(jobs.plain().lockId()).as("the engine set afterwards").isEqualTo("jobs.plain");
    assertThat(jobs.runs).hasValue(2);
  }

  @Test
  void aBadProviderUrlFailsEveryCallUntilFixed() {
    System.setProperty("locksmith.url", "nosuch://somewhere");
    Jobs jobs = new Jobs();

    assertThatThrownBy(jobs::plain)
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("nosuch");
    assertThatThrownBy(jobs::plain).isInstanceOf(LockConfigurationException.class);
    assertThat(jobs.runs).hasValue(0);

    System.setProperty("locksmith.url", "file://" + dir.toAbsolutePath());
    assertThat(jobs.plain().lockId()).isEqualTo("jobs.plain");
  }

  @Test
  void aMisconfiguredMethodFailsOnItsFirstCallNamingMethodAndAttribute() {
    use(Locksmith.builder().settings(fileSettings()).build());

    assertThatThrownBy(() -> new BadJobs().badTtl())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("BadJobs.badTtl")
        .hasMessageContaining("attribute ttl");
  }

  @Test
  void validateChecksEveryAnnotatedMethodAtStartUp() {
    use(Locksmith.builder().settings(fileSettings()).build());

    assertThat(AspectLocksmith.validate(Jobs.class, TwiceWoven.class)).isEqualTo(20);
    assertThatThrownBy(() -> AspectLocksmith.validate(BadJobs.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("BadJobs.badTtl")
        .hasMessageContaining("attribute ttl");
  }

  @Test
  void validateRefusesALazyResultTheAspectCannotHold() {
    use(Locksmith.builder().settings(fileSettings()).build());

    assertThatThrownBy(() -> AspectLocksmith.validate(PublishingJobs.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("PublishingJobs.publish(): returns a reactive SubmissionPublisher");
    assertThatThrownBy(() -> AspectLocksmith.validatePackages("dev.locksmith.reactivejobs"))
        .hasMessageContaining("PublishingJobs.publish()");
  }

  @Test
  void validatePackagesFindsTheFirstMistakeInThePackage() {
    use(Locksmith.builder().settings(fileSettings()).build());

    assertThatThrownBy(() -> AspectLocksmith.validatePackages("dev.locksmith.aspectj"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("BadJobs.badTtl");
    assertThatThrownBy(() -> AspectLocksmith.validatePackages("dev.locksmith.nosuch"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("No classes found in package 'dev.locksmith.nosuch'")
        .hasMessageContaining("name them with validate(Class...)");
  }

  @Test
  void validateRefusesAClassThatWasNotWoven() throws Exception {
    use(Locksmith.builder().settings(fileSettings()).build());
    Path ltwClasses = Path.of(Objects.requireNonNull(System.getProperty("ltw.classes")));
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {ltwClasses.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> plainJavac = Class.forName("dev.locksmith.aspectj.ltw.LtwJobs", false, loader);

      assertThatThrownBy(() -> AspectLocksmith.validate(plainJavac))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("dev.locksmith.aspectj.ltw.LtwJobs")
          .hasMessageContaining("was not woven")
          .hasMessageContaining("aspectLibraries")
          .hasMessageContaining("-javaagent");
    }
  }

  @Test
  void resetOfAnotherEngineLeavesTheCurrentOneInPlace() {
    Locksmith ours = Locksmith.builder().settings(fileSettings()).build();
    use(ours);
    try (Locksmith other = Locksmith.builder().settings(fileSettings()).build()) {
      assertThat(AspectLocksmith.reset(other)).isFalse();
      assertThat(AspectLocksmith.engine()).isSameAs(ours);
    }
    assertThat(AspectLocksmith.reset(ours)).isTrue();
  }

  @Test
  void closingTheLaterOfTwoContextsGivesTheEarliersEngineBack() {
    // Two contexts in one class loader (cached test contexts): closing the later one cleared the
    // engine, and the earlier one's calls then went to an engine made from settings.
    Locksmith earlier = Locksmith.builder().settings(fileSettings()).build();
    try (Locksmith later = Locksmith.builder().settings(fileSettings()).build()) {
      use(earlier);
      AspectLocksmith.use(later);
      assertThat(AspectLocksmith.engine()).isSameAs(later);

      assertThat(AspectLocksmith.reset(later)).isTrue();
      assertThat(AspectLocksmith.engine()).isSameAs(earlier);
    }
    assertThat(AspectLocksmith.reset(earlier)).isTrue();
  }

  @Test
  void closingTheEarlierOfTwoContextsLeavesTheLatersEngine() {
    Locksmith earlier = Locksmith.builder().settings(fileSettings()).build();
    Locksmith later = Locksmith.builder().settings(fileSettings()).build();
    use(later);
    try {
      AspectLocksmith.use(earlier);
      AspectLocksmith.use(later);
      assertThat(AspectLocksmith.reset(earlier)).as("forgotten, though not current").isTrue();
      assertThat(AspectLocksmith.engine()).isSameAs(later);
      assertThat(AspectLocksmith.reset(later)).isTrue();
      assertThat(AspectLocksmith.reset(earlier)).as("forgotten already").isFalse();
    } finally {
      earlier.close();
    }
  }

  private void use(Locksmith locksmith) {
    engine = locksmith;
    AspectLocksmith.use(locksmith);
  }

  private LocksmithSettings fileSettings() {
    return LocksmithSettings.from(Map.of("locksmith.url", "file://" + dir.toAbsolutePath()));
  }
}
