package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.micronaut.app.other.OtherPackageJob;
import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.assertj.core.api.AbstractStringAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** A bad configuration stops the context at start-up with a message naming what is wrong. */
class BadConfigurationTest {
  private static final Map<String, Object> MEM = Map.of("locksmith.url", "mem:bad-config");

  @Test
  void aKeyNamingAnUnknownParameter() {
    assertStartFails(MEM, "bad-key")
        .contains(BadlyConfiguredJobs.UnknownParameter.class.getName() + ".transfer(String)")
        .contains("attribute key")
        .contains("acount");
  }

  @Test
  void aBadDuration() {
    BadlyConfiguredJobs.EngineWatcher.ENGINE.set(null);
    assertStartFails(MEM, "bad-ttl")
        .contains(BadlyConfiguredJobs.BadTtl.class.getName() + ".run()")
        .contains("attribute ttl")
        .contains("soon");
    assertClosed(BadlyConfiguredJobs.EngineWatcher.ENGINE.get());
  }

  @Test
  void aBadDurationOnAnInheritedDefaultMethod() {
    assertStartFails(MEM, "bad-default")
        .contains(BadlyConfiguredJobs.BadTtlDefault.class.getName() + ".nightly()")
        .contains("attribute ttl")
        .contains("soon");
  }

  @Test
  void anUnknownProviderName() {
    assertStartFails(MEM, "bad-provider")
        .contains(BadlyConfiguredJobs.UnknownProvider.class.getName() + ".run()")
        .contains("attribute provider")
        .contains("nowhere");
  }

  @Test
  void skipOnAMethodReturningAPrimitive() {
    assertStartFails(MEM, "bad-skip")
        .contains(BadlyConfiguredJobs.SkipWithPrimitive.class.getName() + ".count()")
        .contains("attribute onBusy");
  }

  @Test
  void aFutureThatIsNotACompletionStage() {
    assertStartFails(MEM, "bad-future")
        .contains(BadlyConfiguredJobs.PlainFuture.class.getName() + ".later()")
        .contains("CompletableFuture");
  }

  @Test
  void aLazyResultThatMicronautCannotConvertToAPublisher() {
    // Micronaut converts no java.* type, so the call would run as a plain one and fail each time.
    assertStartFails(MEM, "bad-flow-publisher")
        .contains(BadlyConfiguredJobs.FlowPublisher.class.getName() + ".feed()")
        .contains("returns a reactive Publisher");
  }

  @Test
  void aStaticMethodThatCannotBeIntercepted() {
    assertStartFails(MEM, "bad-static")
        .contains(BadlyConfiguredJobs.StaticMethod.class.getName() + ".run")
        .contains("would run without a lock")
        .contains("static");
  }

  @Test
  void aPackagePrivateMethodInheritedFromAnotherPackage() {
    // Micronaut lists it as intercepted, but callers in its package reached it unlocked.
    assertStartFails(MEM, "bad-package-private")
        .contains(OtherPackageJob.class.getName() + ".run()")
        .contains("would run without a lock")
        .contains("package-private in " + OtherPackageJob.class.getName());
  }

  @Test
  void anAnnotationOnTheInterfaceMethodSaysWhereToPutIt() {
    assertStartFails(MEM, "bad-interface")
        .contains(BadlyConfiguredJobs.AnnotatedOnTheInterface.class.getName() + ".charge()")
        .contains("would run without a lock")
        .contains("the annotation is on " + BadlyConfiguredJobs.Billing.class.getName())
        .doesNotContain("annotation processor path");
  }

  @Test
  void anInterfaceMethodImplementedByAnInheritedBodySaysWhereToPutIt() {
    // Micronaut's proxy sees only the body, which neither carries nor inherits the annotation.
    assertStartFails(MEM, "bad-inherited-body")
        .contains(BadlyConfiguredJobs.PlainBilling.class.getName() + ".charge()")
        .contains("would run without a lock")
        .contains("the annotation is on " + BadlyConfiguredJobs.Billing.class.getName())
        .contains("override it in " + BadlyConfiguredJobs.BillsWithAnInheritedBody.class.getName());
  }

  @Test
  void anAnnotationOnAGenericInterfaceMethodSaysWhereToPutIt() {
    // The implementation's parameter is not the interface method's erased one (a bridge links
    // them).
    assertStartFails(MEM, "bad-generic-interface")
        .contains(
            BadlyConfiguredJobs.AnnotatedOnTheGenericInterface.class.getName() + ".handle(String)")
        .contains("would run without a lock")
        .contains("the annotation is on " + BadlyConfiguredJobs.Handler.class.getName());
  }

  @Test
  void aFactoryMadeBeanOfALockedClassIsNotTakenForTheInterceptedOne() {
    assertStartFails(MEM, "factory-made")
        .contains(BadlyConfiguredJobs.Sweeper.class.getName() + ".sweep()")
        .contains("would run without a lock")
        .contains("@Factory")
        .doesNotContain("annotation processor path");
  }

  @Test
  void aFactoryMethodDeclaringAnInterfaceDoesNotHideTheLockedClassItReturns() {
    BadlyConfiguredJobs.EngineWatcher.ENGINE.set(null);
    assertStartFails(MEM, "factory-interface")
        .contains(BadlyConfiguredJobs.SweepsImpl.class.getName() + ".sweep()")
        .contains("would run without a lock")
        .contains(
            "@Factory method declared to return " + BadlyConfiguredJobs.Sweeps.class.getName());
    assertClosed(BadlyConfiguredJobs.EngineWatcher.ENGINE.get());
  }

  /** The engine a failed start-up made is closed with its providers and threads. */
  private static void assertClosed(@Nullable Locksmith engine) {
    assertThat(engine).as("the engine made before the failure").isNotNull();
    assertThatThrownBy(() -> engine.tryAcquire(LockOptions.named("after-failed-start")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void noDefaultProviderForAMethodThatNeedsOne() {
    assertStartFails(Map.of(), "no-provider")
        .contains(BadlyConfiguredJobs.NeedsDefault.class.getName() + ".run()")
        .contains("locksmith.url");
  }

  @Test
  void anUnknownUrlScheme() {
    assertStartFails(Map.of("locksmith.url", "nope://somewhere"), "none")
        .startsWith("locksmith.url: ")
        .contains("nope");
  }

  @Test
  void aBadNamedUrlIsReportedEvenWhenTheDefaultProviderIsDown() {
    // Port 1 on loopback: nothing listens, so a probe of the default provider would fail too.
    assertStartFails(
            Map.of(
                "locksmith.url", "tcp://127.0.0.1:1",
                "locksmith.providers.reports.url", "nope://somewhere",
                "locksmith.require-providers-at-startup", "true"),
            "none")
        .startsWith("locksmith.providers.reports.url: ")
        .contains("nope");
  }

  @Test
  void aNamedProviderWithoutUrl() {
    assertStartFails(Map.of("locksmith.providers.reports.url", " "), "none")
        .contains("locksmith.providers.reports.url is missing");
  }

  @Test
  void aNamedProviderWithAKeyOtherThanUrl() {
    assertStartFails(Map.of("locksmith.providers.reports.prefix", "x"), "none")
        .startsWith("locksmith.providers.reports.prefix is not a setting")
        .contains("takes only url");
  }

  @Test
  void aUrlAndAProviderBeanBothClaimingTheDefault() {
    assertStartFails(MEM, "provider-bean").contains("locksmith.url is set").contains("@Named");
  }

  @Test
  void requireProvidersAtStartupThatIsNotABoolean() {
    assertStartFails(
            Map.of("locksmith.url", "mem:bad", "locksmith.require-providers-at-startup", "maybe"),
            "none")
        .startsWith("locksmith.require-providers-at-startup: ")
        .contains("maybe")
        .contains("true or false");
  }

  @Test
  void aShutdownTimeoutThatIsNotADuration() {
    assertStartFails(
            Map.of("locksmith.url", "mem:bad", "locksmith.shutdown-timeout", "soon"), "none")
        .startsWith("locksmith.shutdown-timeout: ")
        .contains("soon");
  }

  @Test
  void aNegativeProbeInterval() {
    assertStartFails(
            Map.of("locksmith.url", "mem:bad", "locksmith.provider-probe-interval", "-1s"), "none")
        .startsWith("locksmith.provider-probe-interval: ");
  }

  @Test
  void aGoodConfigurationStarts() {
    try (ApplicationContext context = ApplicationContext.run(MEM, "none")) {
      assertThat(context.isRunning()).isTrue();
    }
  }

  private static AbstractStringAssert<?> assertStartFails(
      Map<String, Object> properties, String environment) {
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(
            () -> {
              try (ApplicationContext context = ApplicationContext.run(properties, environment)) {
                context.isRunning();
              }
            })
        .satisfies(e -> failure[0] = e);
    return assertThat(ConfigurationFailures.cause(failure[0]).getMessage());
  }
}
