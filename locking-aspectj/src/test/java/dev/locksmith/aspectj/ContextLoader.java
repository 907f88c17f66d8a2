package dev.locksmith.aspectj;

import dev.locksmith.core.Locksmith;
import java.util.concurrent.Callable;

/** Runs test code with another thread context class loader, as an application server would. */
final class ContextLoader {
  private ContextLoader() {}

  /** Calls {@code action} with {@code loader} as the thread's context class loader. */
  static <T> T with(ClassLoader loader, Callable<T> action) throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return action.call();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Hands {@code engine} to the aspect with {@code loader} as the context class loader. */
  static void use(ClassLoader loader, Locksmith engine) throws Exception {
    with(
        loader,
        () -> {
          AspectLocksmith.use(engine);
          return engine;
        });
  }
}
