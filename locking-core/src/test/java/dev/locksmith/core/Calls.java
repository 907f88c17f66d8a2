package dev.locksmith.core;

import dev.locksmith.core.internal.LockedInvocation;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/** Calls an annotated method through the engine, as an interceptor would. */
final class Calls {
  private Calls() {}

  static Method method(Class<?> type, String name) {
    return Arrays.stream(type.getDeclaredMethods())
        .filter(m -> m.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no method " + name));
  }

  private static Method findIn(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.getName().equals(name)) {
          return m;
        }
      }
    }
    throw new IllegalArgumentException("no method " + name);
  }

  static @Nullable Object call(Locksmith locksmith, Object target, String name, Object... args)
      throws Exception {
    Method method = findIn(target.getClass(), name);
    method.setAccessible(true);
    try {
      return locksmith.invoke(LockedInvocation.reflective(target, method, args));
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The body of an intercepted call. */
  @FunctionalInterface
  interface Proceed {
    @Nullable Object run() throws Throwable;
  }

  /** An intercepted call of {@code method} on a {@code targetClass}, running {@code proceed}. */
  static LockedInvocation invocation(
      Method method, Class<?> targetClass, @Nullable Object[] args, Proceed proceed) {
    return new LockedInvocation() {
      @Override
      public Method method() {
        return method;
      }

      @Override
      public Class<?> targetClass() {
        return targetClass;
      }

      @Override
      public @Nullable Object[] arguments() {
        return args;
      }

      @Override
      public @Nullable Object proceed() throws Throwable {
        return proceed.run();
      }
    };
  }
}
