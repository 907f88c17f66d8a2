package dev.locksmith.testkit;

import dev.locksmith.core.internal.LockedInvocation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/** Calls of annotated methods handed to the engine as an interceptor would hand them. */
final class Invocations {
  private Invocations() {}

  static LockedInvocation of(Object target, String name, @Nullable Object... args) {
    Method method =
        Arrays.stream(target.getClass().getDeclaredMethods())
            .filter(m -> m.getName().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no method " + name));
    method.setAccessible(true);
    return new LockedInvocation() {
      @Override
      public Method method() {
        return method;
      }

      @Override
      public Class<?> targetClass() {
        return target.getClass();
      }

      @Override
      public @Nullable Object[] arguments() {
        return args;
      }

      @Override
      public @Nullable Object proceed() throws Throwable {
        try {
          return method.invoke(target, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }
    };
  }
}
