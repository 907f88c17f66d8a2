package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Once the context shuts down, the engine is not made again: a {@code @Scheduled} tick that fired
 * meanwhile (without graceful shutdown) made a new engine, with new providers and threads, that
 * nothing closed, and ran its job locked through it after the close.
 */
class EngineAfterCloseTest {

  @Test
  void theEngineAskedForAfterItsDestructionIsRefusedNamingTheShutdown() {
    ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", "mem:after-close"), "after-close-lookup");
    AfterCloseLookup lookup = context.getBean(AfterCloseLookup.class);

    context.close();

    assertThat(lookup.outcome.get())
        .isInstanceOfSatisfying(
            RuntimeException.class,
            e -> assertThat(e).rootCause().hasMessageContaining("shutting down"));
  }
}
