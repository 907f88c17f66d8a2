package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A listener is told once of each engine it is given to, as the engine is built, so that it can
 * prepare for that engine's providers; one that throws there does not stop the build.
 */
class ListenerAttachedTest {

  @Test
  void eachListenerIsToldOnceOfTheEngineItWasGivenToAndAFailingOneIsOnlyLogged() throws Exception {
    List<Locksmith> told = new CopyOnWriteArrayList<>();
    LockListener failing =
        new LockListener() {
          @Override
          public void attached(Locksmith engine) {
            throw new IllegalStateException("a listener that fails");
          }
        };
    LockListener recording =
        new LockListener() {
          @Override
          public void attached(Locksmith engine) {
            told.add(engine);
          }
        };
    try (Locksmith engine =
        Locksmith.builder()
            .defaultProvider(MemoryLockProvider.isolated())
            .listener(failing)
            .listener(recording)
            .build()) {
      assertThat(told).containsExactly(engine);
      assertThat(engine.run(LockOptions.named("attached"), () -> {})).isTrue();
      assertThat(told).containsExactly(engine);
    }
  }
}
