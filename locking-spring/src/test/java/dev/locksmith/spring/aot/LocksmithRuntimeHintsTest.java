package dev.locksmith.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.internal.KeyRoot;
import dev.locksmith.core.memory.MemoryLockProviderFactory;
import dev.locksmith.file.FileLockProviderFactory;
import dev.locksmith.spel.SpelKeyLanguage;
import dev.locksmith.tcp.TcpLockProviderFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** Every hint {@link LocksmithRuntimeHints} promises, and its registration for Spring AOT. */
class LocksmithRuntimeHintsTest {
  private final RuntimeHints hints = new RuntimeHints();

  LocksmithRuntimeHintsTest() {
    new LocksmithRuntimeHints().registerHints(hints, getClass().getClassLoader());
  }

  @Test
  void speLReadsTheKeyRootsGettersThroughReflection() {
    for (String getter : List.of("getMethod", "getMethodName", "getArgs", "getTargetClass")) {
      assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(KeyRoot.class, getter))
          .as(getter)
          .accepts(hints);
    }
  }

  @Test
  void serviceFilesAndSettingsAreResources() {
    for (String resource :
        List.of(
            "META-INF/services/dev.locksmith.core.spi.LockProviderFactory",
            "META-INF/services/dev.locksmith.core.internal.KeyLanguage",
            "locksmith.properties",
            "META-INF/locksmith/locked-methods")) {
      assertThat(RuntimeHintsPredicates.resource().forResource(resource))
          .as(resource)
          .accepts(hints);
    }
  }

  @Test
  void everyProviderFactoryAndKeyLanguageOnTheClassPathCanBeCreated() throws NoSuchMethodException {
    for (Class<?> factory :
        List.of(
            MemoryLockProviderFactory.class,
            FileLockProviderFactory.class,
            TcpLockProviderFactory.class,
            SpelKeyLanguage.class)) {
      assertThat(
              RuntimeHintsPredicates.reflection().onConstructorInvocation(factory.getConstructor()))
          .as(factory.getName())
          .accepts(hints);
    }
  }

  @Test
  void theAnnotationAndReactorTypesAreRegistered() {
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onType(DistributedLock.class)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(reactor.core.publisher.Mono.class))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(reactor.core.publisher.Flux.class))
        .accepts(hints);
  }

  @Test
  void springAotFindsTheRegistrarAndTheBeanProcessor() {
    assertThat(
            SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class))
        .hasAtLeastOneElementOfType(LocksmithRuntimeHints.class);
    assertThat(
            SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(org.springframework.beans.factory.aot.BeanRegistrationAotProcessor.class))
        .hasAtLeastOneElementOfType(LockedBeanAotProcessor.class);
  }
}
