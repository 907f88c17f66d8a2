package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * What a real {@code SpringApplication} run reports at start-up: Boot's "APPLICATION FAILED TO
 * START" analysis for lock configuration mistakes, and the warning when locking is turned off.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupDiagnosticsTest {

  @Test
  void badDurationIsAnalysed(CapturedOutput output) {
    assertThatThrownBy(
            () -> run("badDuration", BadDuration.class, "locksmith.url=mem:diag-duration"))
        .isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration: Bean 'badDuration'")
        .contains("attribute ttl: 'ten seconds' is not a duration");
  }

  @Test
  void aBadDurationOnAnInheritedDefaultMethodIsAnalysed(CapturedOutput output) {
    assertThatThrownBy(
            () -> run("badDefault", BadDefaultMethod.class, "locksmith.url=mem:diag-default"))
        .isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration: Bean 'badDefault'")
        .contains("NightlyDefaults.nightly(), attribute ttl: 'soon' is not a duration");
  }

  @Test
  void anInheritedDefaultMethodRunsLocked() {
    try (ConfigurableApplicationContext context =
        run("withDefault", GoodDefaultMethod.class, "locksmith.url=mem:diag-good-default")) {
      assertThat(context.getBean(GoodDefaultMethod.class).daily()).isEqualTo("diag-daily");
    }
  }

  @Test
  void anImplementationOfAGenericInterfaceMethodRunsLockedAndIsValidated(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        run("orders", GenericOrders.class, "locksmith.url=mem:diag-generic")) {
      assertThat(context.getBean(GenericOrders.class).handle("o-1")).isEqualTo("diag-generic");
    }
    assertThatThrownBy(
            () -> run("badOrders", BadGenericOrders.class, "locksmith.url=mem:diag-generic-bad"))
        .isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration: Bean 'badOrders'")
        .contains("attribute ttl: 'soon' is not a duration");
  }

  @Test
  void badKeyExpressionIsAnalysed(CapturedOutput output) {
    assertThatThrownBy(() -> run("badKey", BadKey.class, "locksmith.url=mem:diag-key")).isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration: Bean 'badKey'")
        .contains("attribute key");
  }

  @Test
  void badUrlIsAnalysed(CapturedOutput output) {
    assertThatThrownBy(() -> run("locked", Locked.class, "locksmith.url=tcp://127.0.0.1:7420/path"))
        .isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration:")
        .contains("tcp://127.0.0.1:7420/path")
        .contains("has path '/path'");
  }

  @Test
  void badEngineSettingIsAnalysedNamingTheProperty(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                run(
                    "locked",
                    Locked.class,
                    "locksmith.url=mem:diag-probe",
                    "locksmith.provider-probe-interval=0s"))
        .isNotNull();
    assertAnalysis(output)
        .contains("Invalid lock configuration: locksmith.provider-probe-interval:")
        .contains("must be positive, was 0s");
  }

  @Test
  void disabledLockingWarnsWithTheNumberOfUnlockedMethods(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        run("locked", Locked.class, "locksmith.enabled=false", "locksmith.url=mem:diag-disabled")) {
      assertThat(context.getBeanProvider(Locksmith.class).getIfAvailable()).isNull();
      assertThat(context.getBean(Locked.class).work()).isEqualTo("ran");
    }
    assertThat(output)
        .contains("WARN")
        .contains(
            "Locking is disabled (locksmith.enabled=false): 2 @DistributedLock method(s) will run"
                + " unlocked");
  }

  @Test
  void enableDistributedLockingOverridesTheSwitchWithoutAFalseWarning(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        explicitlyEnabledWithTheSwitchOff("mem:diag-explicit")) {
      assertThat(context.getBean(LockedHere.class).lockId()).isEqualTo("diag-explicit-work");
    }
    assertThat(output).doesNotContain("Locking is disabled");
  }

  @Test
  void enableDistributedLockingWithTheSwitchOffStillHasItsHealthContributor() {
    try (ConfigurableApplicationContext context =
        explicitlyEnabledWithTheSwitchOff("mem:diag-explicit-health")) {
      assertThat(context.getBeansOfType(Locksmith.class)).hasSize(1);
      assertThat(context.containsBean("locksmithHealthContributor"))
          .as("the engine @EnableDistributedLocking brings is reported like Boot's own")
          .isTrue();
    }
  }

  @Test
  void enabledLockingDoesNotWarn(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        run("locked", Locked.class, "locksmith.url=mem:diag-enabled")) {
      assertThat(context.getBean(Locked.class).work()).isEqualTo("ran");
    }
    assertThat(output).doesNotContain("Locking is disabled");
  }

  private static org.assertj.core.api.AbstractStringAssert<?> assertAnalysis(
      CapturedOutput output) {
    String text = output.getAll();
    assertThat(text).contains("APPLICATION FAILED TO START").contains("Description:");
    assertThat(text)
        .as("the analysis, not a stack trace, reports the failure")
        .contains("Action:")
        .contains("Correct the @DistributedLock attribute or the locksmith.* property");
    return assertThat(text.substring(text.indexOf("APPLICATION FAILED TO START")));
  }

  /** Runs {@link ExplicitlyEnabled} with {@code locksmith.enabled=false} and {@link LockedHere}. */
  private static ConfigurableApplicationContext explicitlyEnabledWithTheSwitchOff(String url) {
    return run(
        ExplicitlyEnabled.class,
        "locked",
        LockedHere.class,
        "locksmith.enabled=false",
        "locksmith.url=" + url);
  }

  /** Runs {@link App} with one bean of {@code beanType} named {@code beanName}. */
  private static ConfigurableApplicationContext run(
      String beanName, Class<?> beanType, String... properties) {
    return run(App.class, beanName, beanType, properties);
  }

  /** Runs {@code application} with one bean of {@code beanType} named {@code beanName}. */
  private static ConfigurableApplicationContext run(
      Class<?> application, String beanName, Class<?> beanType, String... properties) {
    return new SpringApplicationBuilder(application)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off")
        .properties(properties)
        .initializers(
            context -> ((GenericApplicationContext) context).registerBean(beanName, beanType))
        .run();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  /** An application that turns locking on itself, whatever locksmith.enabled says. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableDistributedLocking
  static class ExplicitlyEnabled {}

  /** A locked method that tells which lock it ran under. */
  public static class LockedHere {
    /** Locked. */
    @DistributedLock(name = "diag-explicit-work")
    public String lockId() {
      return Locks.currentIfAny().map(Lease::lockId).orElse("unlocked");
    }
  }

  /** Two locked methods. */
  public static class Locked {
    /** Locked. */
    @DistributedLock(name = "diag-work")
    public String work() {
      return "ran";
    }

    /** Locked too. */
    @DistributedLock(name = "diag-more")
    public void more() {}
  }

  /** A ttl that is not a duration. */
  public static class BadDuration {
    /** Never called. */
    @DistributedLock(name = "diag-duration", ttl = "ten seconds")
    public void work() {}
  }

  /** Locked default methods, one with a ttl that is not a duration. */
  public interface NightlyDefaults {
    /** Never called. */
    @DistributedLock(name = "diag-nightly", ttl = "soon")
    default void nightly() {}
  }

  /** Inherits the badly configured default method without overriding it. */
  public static class BadDefaultMethod implements NightlyDefaults {}

  /** A locked default method that tells which lock it ran under. */
  public interface DailyDefaults {
    /**
     * Locked.
     *
     * @return the lock id held while it ran
     */
    @DistributedLock(name = "diag-daily")
    default String daily() {
      return Locks.currentIfAny().map(Lease::lockId).orElse("unlocked");
    }
  }

  /** Inherits the locked default method without overriding it. */
  public static class GoodDefaultMethod implements DailyDefaults {}

  /**
   * A locked method of a generic interface.
   *
   * @param <T> what it handles
   */
  public interface Handler<T> {
    /**
     * Locked.
     *
     * @param item the item
     * @return the lock id held while it ran
     */
    @DistributedLock(name = "diag-generic")
    String handle(T item);
  }

  /** Implements the generic method with its own parameter type (the compiler adds a bridge). */
  public static class GenericOrders implements Handler<String> {
    @Override
    public String handle(String order) {
      return Locks.currentIfAny().map(Lease::lockId).orElse("unlocked");
    }
  }

  /**
   * A bad duration on a generic interface's method.
   *
   * @param <T> what it handles
   */
  public interface BadHandler<T> {
    /**
     * Locked, badly.
     *
     * @param item the item
     */
    @DistributedLock(ttl = "soon")
    void handle(T item);
  }

  /** Implements the badly locked generic method. */
  public static class BadGenericOrders implements BadHandler<String> {
    @Override
    public void handle(String order) {}
  }

  /** A key that does not parse. */
  public static class BadKey {
    /** Never called. */
    @DistributedLock(name = "diag-key", key = "#id +")
    public void work(String id) {}
  }
}
