package dev.locksmith.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.locksmith.core.internal.ReactiveCall;
import dev.locksmith.core.internal.ReactiveResults;
import dev.locksmith.core.internal.ReactiveReturns;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The direction of dependencies (annotations on nothing, core on no framework, Reactor only in the
 * reactive handler) and the shape of core's public surface: the user API in {@code
 * dev.locksmith.core}, integration hooks in {@code dev.locksmith.core.internal}.
 */
class ArchitectureTest {
  private static final String USER_API = "dev.locksmith.core";

  /**
   * The public types of the user API package: what application code uses. A public type that only
   * integrations use belongs in {@code dev.locksmith.core.internal}, one that providers use in
   * {@code dev.locksmith.core.spi}.
   */
  private static final Set<String> USER_API_TYPES =
      Set.of(
          "Durations",
          "Lease",
          "LockBusyException",
          "LockConfigurationException",
          "LockEvent",
          "LockException",
          "LockKeyException",
          "LockListener",
          "LockLostException",
          "LockOptions",
          "LockProviderException",
          "LockProviders",
          "LockRecordException",
          "LockTimeoutException",
          "Locks",
          "Locksmith",
          "Locksmith$ThrowingRunnable",
          "LocksmithBuilder",
          "LocksmithSettings",
          "ProviderHealth",
          "Ticker");

  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.locksmith.annotation", "dev.locksmith.core");

  @Test
  void annotationsDependOnNothingButTheJdk() {
    classes()
        .that()
        .resideInAPackage("dev.locksmith.annotation..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            // The JDK's compiler API, for an annotation processor.
            "javax.annotation.processing..",
            "javax.lang.model..",
            "javax.tools..",
            "dev.locksmith.annotation..")
        .check(classes);
  }

  @Test
  void coreDependsOnNoFramework() {
    classes()
        .that()
        .resideInAPackage("dev.locksmith.core..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.locksmith..",
            "org.slf4j..",
            "org.jspecify..",
            // Optional, for methods returning Mono or Flux: onlyTheReactiveHandlerDependsOnReactor.
            "reactor.core..",
            "org.reactivestreams..")
        .check(classes);
  }

  /**
   * Reactor is optional for core: only the classes an integration touches after asking {@link
   * ReactiveReturns} may name its types (or reactive-streams', which come with it), so that nothing
   * else fails to load without it.
   */
  @Test
  void onlyTheReactiveHandlerDependsOnReactor() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(ReactiveResults.class, ReactiveCall.class)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("reactor..", "org.reactivestreams..")
        .because("Reactor is an optional dependency of core")
        .check(classes);
  }

  @Test
  void nothingInCoreDependsOnSpring() {
    noClasses()
        .that()
        .resideInAPackage("dev.locksmith.core..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.springframework..")
        .because("key expressions (SpEL) live in locking-spel, behind KeyLanguage")
        .check(classes);
  }

  @Test
  void integrationHooksStayOutOfTheUserApiPackage() {
    classes()
        .that()
        .resideInAPackage(USER_API)
        .and()
        .arePublic()
        .should(
            new ArchCondition<JavaClass>(
                "be user API (an integration hook belongs in dev.locksmith.core.internal)") {
              @Override
              public void check(JavaClass type, ConditionEvents events) {
                String name = type.getName().substring(USER_API.length() + 1);
                if (!USER_API_TYPES.contains(name)) {
                  events.add(
                      SimpleConditionEvent.violated(
                          type,
                          type.getName()
                              + " is public in the user API package but not user API: move it to"
                              + " dev.locksmith.core.internal (or .spi), or list it here"));
                }
              }
            })
        .check(classes);
  }

  @Test
  void userApiSignaturesNameNoSpringType() {
    codeUnits()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage(USER_API)
        .and()
        .areDeclaredInClassesThat()
        .arePublic()
        .and()
        .arePublic()
        .should(
            new ArchCondition<JavaCodeUnit>("name no Spring type in their signature") {
              @Override
              public void check(JavaCodeUnit unit, ConditionEvents events) {
                Set<JavaClass> involved = new LinkedHashSet<>();
                unit.getParameterTypes().forEach(t -> involved.addAll(t.getAllInvolvedRawTypes()));
                involved.addAll(unit.getReturnType().getAllInvolvedRawTypes());
                for (JavaClass type : involved) {
                  if (type.getPackageName().startsWith("org.springframework")) {
                    events.add(
                        SimpleConditionEvent.violated(
                            unit,
                            unit.getFullName()
                                + " names "
                                + type.getName()
                                + "; Spring types belong in dev.locksmith.core.internal"));
                  }
                }
              }
            })
        .check(classes);
  }

  @Test
  void integrationHooksDependOnTheUserApiAndNoFramework() {
    classes()
        .that()
        .resideInAPackage("dev.locksmith.core.internal..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.locksmith.annotation..",
            USER_API,
            "dev.locksmith.core.internal..",
            "org.jspecify..",
            // Optional, for methods returning Mono or Flux: onlyTheReactiveHandlerDependsOnReactor.
            "reactor.core..",
            "org.reactivestreams..")
        .check(classes);
  }

  @Test
  void providersAndSpiDoNotReachIntoTheEngine() {
    classes()
        .that()
        .resideInAnyPackage("dev.locksmith.core.spi..", "dev.locksmith.core.memory..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..", "dev.locksmith.core.spi..", "dev.locksmith.core.memory..", "org.jspecify..")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(
            LockConfigurationException.class,
            LockProviderException.class,
            LockRecordException.class,
            LockException.class,
            Durations.class)
        .check(classes);
  }
}
