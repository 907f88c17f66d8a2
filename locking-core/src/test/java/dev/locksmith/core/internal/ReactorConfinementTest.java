package dev.locksmith.core.internal;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Reactor is optional for core: only the classes an integration touches after asking {@link
 * ReactiveReturns} may name its types (or reactive-streams', which come with it), so that nothing
 * else fails to load without it.
 */
class ReactorConfinementTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.locksmith.annotation", "dev.locksmith.core");

  @Test
  void onlyTheReactiveHandlerDependsOnReactor() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(ReactiveResults.class, ReactiveCall.class)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("reactor..", "org.reactivestreams..")
        .because("Reactor is an optional dependency of core")
        .check(CLASSES);
  }
}
