package dev.locksmith.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The direction of dependencies: annotations on nothing, core on no framework. */
class ArchitectureTest {
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
  void coreDependsOnNoFrameworkBeyondSpringExpression() {
    classes()
        .that()
        .resideInAPackage("dev.locksmith.core..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.locksmith..",
            "org.springframework.expression..",
            "org.slf4j..",
            "org.jspecify..")
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
            LockException.class,
            Durations.class)
        .check(classes);
  }
}
