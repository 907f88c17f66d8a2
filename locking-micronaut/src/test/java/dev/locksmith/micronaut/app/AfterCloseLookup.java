package dev.locksmith.micronaut.app;

import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asks for the engine as a late {@code @Scheduled} tick does, once the engine was destroyed: a
 * listener, which the engine depends on, is destroyed after it.
 */
@Singleton
@Requires(env = "after-close-lookup")
final class AfterCloseLookup implements LockListener {
  final AtomicReference<Object> outcome = new AtomicReference<>();
  private final BeanContext context;

  AfterCloseLookup(BeanContext context) {
    this.context = context;
  }

  @PreDestroy
  void lookUp() {
    try {
      Locksmith engine = context.getBean(Locksmith.class);
      outcome.set(engine);
      engine.close();
    } catch (RuntimeException e) {
      outcome.set(e);
    }
  }
}
