package dev.locksmith.testkit;

import dev.locksmith.core.internal.LockedInvocation;
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
    return LockedInvocation.reflective(target, method, args);
  }
}
