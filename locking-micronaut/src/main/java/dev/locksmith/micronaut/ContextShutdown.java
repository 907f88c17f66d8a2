package dev.locksmith.micronaut;

import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.ShutdownEvent;
import jakarta.inject.Singleton;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Which contexts began to shut down, so that the engine is not made again in one: a
 * {@code @Scheduled} tick that fires while the context closes (without graceful shutdown) asks for
 * the interceptor's engine after it was destroyed, and Micronaut would make a new one, with new
 * providers and threads that nothing closes, and run the job locked through it after the close.
 */
@Singleton
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class ContextShutdown implements ApplicationEventListener<ShutdownEvent> {
  private static final Set<BeanContext> STOPPING =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  @Override
  public void onApplicationEvent(ShutdownEvent event) {
    STOPPING.add(event.getSource());
  }

  /**
   * Fails when {@code context} began to shut down.
   *
   * @throws IllegalStateException naming the shutdown
   */
  static void refuseIfStopping(BeanContext context) {
    if (STOPPING.contains(context)) {
      throw new IllegalStateException(
          "The Locksmith engine is not made again: its application context is shutting down or"
              + " stopped, so locked calls are refused (a @Scheduled job that fires during the"
              + " close, say; enable micronaut.lifecycle.graceful-shutdown to let it finish first)");
    }
  }
}
